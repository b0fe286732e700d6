package dev.ratelimit.algorithm;


import org.jspecify.annotations.Nullable;

/**
 * The outcome of all limits of a tier for one request: a request must pass every
 * limit. Holds every limit's decision, so that headers can describe each limit, and
 * which of them is reported when only one can be.
 * <p>
 * The limit reported is the one with the least remaining, in absolute units, as
 * draft-ietf-httpapi-ratelimit-headers-06 section 4 requires ("the server MUST reply
 * with the RateLimit fields related to the time window with the lower
 * RateLimit-Remaining field values"); of equals, the one whose reset is furthest. On a
 * rejection only the limits that rejected are candidates, so that the reported reset is
 * a retry-after.
 * <p>
 * The verdict of a tier of one limit is that limit's {@link Decision} itself. Under a
 * {@link Penalty}, a verdict also says whether a block refused the request before any
 * limit was consulted, or which block its breach started.
 */
public abstract sealed class Verdict permits Decision, Verdict.OfAll {

	private static final Decision[] NO_DECISIONS = {};

	/**
	 * Admitted without consulting any limit, because none could be consulted: a store
	 * failed open. There is no quota to report.
	 */
	public static final Verdict FAIL_OPEN = withoutLimits(true, 0);

	private final boolean allowed;

	private final long retryAfterNanos;

	private final long delayNanos;

	private final boolean fallback;

	Verdict(boolean allowed, long retryAfterNanos, long delayNanos, boolean fallback) {
		this.allowed = allowed;
		this.retryAfterNanos = retryAfterNanos;
		this.delayNanos = delayNanos;
		this.fallback = fallback;
	}

	/**
	 * The verdict of a tier of one limit: its decision.
	 * @return the verdict, never a fallback
	 */
	public static Verdict of(Decision decision) {
		return decision;
	}

	/**
	 * Combine the decisions of every limit of a tier. Allowed when all allowed;
	 * otherwise the retry-after is the longest of the rejecting limits': time only
	 * brings the other limits closer to admitting the request.
	 * @param decisions one decision per limit, in the tier's order, at least one; kept,
	 * not copied, so the caller hands over an array it no longer touches
	 * @return the verdict, never a fallback
	 */
	public static Verdict of(Decision... decisions) {
		if (decisions.length == 0) {
			throw new IllegalArgumentException("a verdict needs at least one decision");
		}
		if (decisions.length == 1) {
			return of(decisions[0]);
		}
		boolean allowed = true;
		long retryAfter = 0;
		long delay = 0;
		for (Decision decision : decisions) {
			if (!decision.allowed()) {
				allowed = false;
				retryAfter = Math.max(retryAfter, decision.retryAfterNanos());
			}
			delay = Math.max(delay, decision.delayNanos());
		}
		int reported = 0;
		for (int i = 1; i < decisions.length; i++) {
			if (reportsBefore(allowed, decisions, i, reported)) {
				reported = i;
			}
		}
		return new OfAll(allowed, decisions, reported, retryAfter, allowed ? delay : 0, false, null, false);
	}

	/**
	 * A store's failure mode decided without consulting any limit: there is no quota to
	 * report.
	 */
	public static Verdict withoutLimits(boolean allowed, long retryAfterNanos) {
		return new OfAll(allowed, NO_DECISIONS, -1, allowed ? 0 : retryAfterNanos, 0, true, null, false);
	}

	/**
	 * A request refused by a {@link Penalty} block in force, without consulting any
	 * limit: there is no quota to report.
	 * @param block the client's block
	 * @param remainingNanos how long the block still lasts, by the store's clock
	 */
	public static Verdict blocked(Block block, long remainingNanos) {
		return new OfAll(false, NO_DECISIONS, -1, remainingNanos, 0, false, block, true);
	}

	/**
	 * This verdict, a rejection by the limits, whose breach started {@code block}: the
	 * client may come back once both its limits and the block allow, so its retry-after
	 * is the longer of the two.
	 * @param remainingNanos how long the block lasts, by the store's clock
	 */
	public Verdict startingBlock(Block block, long remainingNanos) {
		Decision[] decisions = new Decision[limitCount()];
		for (int i = 0; i < decisions.length; i++) {
			decisions[i] = decision(i);
		}
		return new OfAll(false, decisions, reportedIndex(), Math.max(retryAfterNanos(), remainingNanos), 0,
				fallback(), block, false);
	}

	/**
	 * This verdict, marked as decided by a store's failure mode, which holds no request:
	 * its delay is dropped.
	 */
	public abstract Verdict asFallback();

	/**
	 * The {@link Penalty} block that refused the request ({@link #blocked()}) or that its
	 * breach started; {@code null} when no block had a part in the verdict.
	 */
	public abstract @Nullable Block block();

	/**
	 * Whether a block in force refused the request without any limit being consulted.
	 */
	public abstract boolean blocked();

	/**
	 * Whether the request's breach started its {@link #block()}.
	 */
	public boolean startedBlock() {
		return block() != null && !blocked();
	}

	static Verdict fallbackOf(Decision decision) {
		return new OfAll(decision.allowed(), new Decision[] { decision }, 0, decision.retryAfterNanos(), 0, true, null,
				false);
	}

	/**
	 * Whether every limit admitted the request (and so each consumed it).
	 */
	public boolean allowed() {
		return this.allowed;
	}

	/**
	 * Whether a store's failure mode decided instead of the store itself.
	 */
	public boolean fallback() {
		return this.fallback;
	}

	/**
	 * When rejected, nanoseconds until every limit would admit the request; {@code 0}
	 * when allowed.
	 */
	public long retryAfterNanos() {
		return this.retryAfterNanos;
	}

	/**
	 * When allowed by a shaping limit, nanoseconds the request is to be held before it
	 * is forwarded: the longest any limit asks, each having taken the request's place;
	 * {@code 0} when it goes at once, when rejected and when a failure mode decided.
	 */
	public long delayNanos() {
		return this.delayNanos;
	}

	/**
	 * Seconds a rejected client should wait, rounded up and at least one.
	 */
	public long retryAfterSeconds() {
		return Math.max(1, Nanos.ceilSeconds(this.retryAfterNanos));
	}

	/**
	 * How many limits were consulted: the tier's limit count, or {@code 0} when no limit
	 * could be.
	 */
	public abstract int limitCount();

	/**
	 * The decision of the limit at {@code index} in the tier's list of limits.
	 */
	public abstract Decision decision(int index);

	/**
	 * Index of the limit reported to the client; {@code -1} when no limit could be
	 * consulted.
	 */
	public abstract int reportedIndex();

	/**
	 * The decision of the limit reported to the client, or {@code null} when no limit
	 * could be consulted.
	 */
	public abstract @Nullable Decision reported();

	/**
	 * The indexes of the limits, in the order they are reported: the reported limit
	 * first, then by the same rule.
	 */
	public abstract int[] reportOrder();

	/**
	 * Whether the limit at {@code candidate} is reported before the one at
	 * {@code other}, which comes earlier in the tier's order.
	 */
	private static boolean reportsBefore(boolean allowed, Decision[] decisions, int candidate, int other) {
		Decision a = decisions[candidate];
		Decision b = decisions[other];
		if (!allowed && a.allowed() != b.allowed()) {
			return !a.allowed();
		}
		if (a.remaining() != b.remaining()) {
			return a.remaining() < b.remaining();
		}
		return a.resetNanos() > b.resetNanos();
	}

	/**
	 * The verdict of a tier of several limits, of none, of a store's failure mode, or one
	 * a penalty block had a part in.
	 */
	static final class OfAll extends Verdict {

		private final Decision[] decisions;

		private final int reportedIndex;

		private final @Nullable Block block;

		private final boolean blocked;

		private OfAll(boolean allowed, Decision[] decisions, int reportedIndex, long retryAfterNanos,
				long delayNanos, boolean fallback, @Nullable Block block, boolean blocked) {
			super(allowed, retryAfterNanos, delayNanos, fallback);
			this.decisions = decisions;
			this.reportedIndex = reportedIndex;
			this.block = block;
			this.blocked = blocked;
		}

		@Override
		public Verdict asFallback() {
			return new OfAll(allowed(), this.decisions, this.reportedIndex, retryAfterNanos(), 0, true, this.block,
					this.blocked);
		}

		@Override
		public @Nullable Block block() {
			return this.block;
		}

		@Override
		public boolean blocked() {
			return this.blocked;
		}

		@Override
		public int limitCount() {
			return this.decisions.length;
		}

		@Override
		public Decision decision(int index) {
			return this.decisions[index];
		}

		@Override
		public int reportedIndex() {
			return this.reportedIndex;
		}

		@Override
		public @Nullable Decision reported() {
			return (this.reportedIndex >= 0) ? this.decisions[this.reportedIndex] : null;
		}

		@Override
		public int[] reportOrder() {
			int[] order = new int[this.decisions.length];
			for (int i = 0; i < order.length; i++) {
				int at = i;
				while (at > 0 && reportsBefore(allowed(), this.decisions, i, order[at - 1])) {
					order[at] = order[at - 1];
					at--;
				}
				order[at] = i;
			}
			return order;
		}

	}

}
