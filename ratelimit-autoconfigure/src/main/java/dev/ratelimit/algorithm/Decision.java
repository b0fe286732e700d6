package dev.ratelimit.algorithm;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The outcome of one limit for one request; immutable. It is also the {@link Verdict}
 * of a tier of that one limit, so that the common path (one limit per tier) answers
 * with one small object, which the JIT keeps off the heap when the caller only reads
 * it.
 * <p>
 * Reset has one meaning in every algorithm: the time until this limit admits more than
 * {@code remaining} units, that is until its remaining count next goes up. It is the
 * "effective window" of draft-ietf-httpapi-ratelimit-headers-11 section 4.1.2 (the time
 * within which the client can use no more than the available quota), and so also the
 * reset of draft-06. A rejection's reset is its retry-after, so that a 429's reset and
 * its {@code Retry-After} reference the same instant (draft-06 section 4, draft-11
 * section 6).
 */
public final class Decision extends Verdict {

	private final long remaining;

	private final long limit;

	private final long resetNanos;

	/**
	 * @param allowed whether the request fits in this limit
	 * @param remaining whole units left after this request (after admitting it when
	 * allowed), never negative
	 * @param limit the quota of the limit: its limit or capacity
	 * @param resetNanos nanoseconds until the limit admits more than {@code remaining}
	 * units if no further request comes; {@code 0} when the whole quota is left; when
	 * rejected, equal to {@code retryAfterNanos}
	 * @param retryAfterNanos when rejected, nanoseconds until the request would fit;
	 * ignored when allowed, where it is {@code 0}
	 */
	public Decision(boolean allowed, long remaining, long limit, long resetNanos, long retryAfterNanos) {
		this(allowed, remaining, limit, resetNanos, retryAfterNanos, 0);
	}

	/**
	 * A decision of a shaping limit, which may admit a request to be released later.
	 * @param delayNanos when allowed, nanoseconds the request is to be held before it is
	 * forwarded, its place in the bucket taken; ignored when rejected, where it is
	 * {@code 0}
	 */
	public Decision(boolean allowed, long remaining, long limit, long resetNanos, long retryAfterNanos,
			long delayNanos) {
		super(allowed, allowed ? 0 : retryAfterNanos, allowed ? delayNanos : 0, false);
		this.remaining = remaining;
		this.limit = limit;
		this.resetNanos = resetNanos;
	}

	/**
	 * A rejection of a request that fits in {@code retryAfterNanos}: its reset is its
	 * retry-after.
	 */
	public static Decision rejected(long remaining, long limit, long retryAfterNanos) {
		return new Decision(false, remaining, limit, retryAfterNanos, retryAfterNanos);
	}

	/**
	 * Whole units left after this request (after admitting it when allowed), never
	 * negative.
	 */
	public long remaining() {
		return this.remaining;
	}

	/**
	 * The quota of the limit: its limit or capacity.
	 */
	public long limit() {
		return this.limit;
	}

	/**
	 * Nanoseconds until the limit admits more than {@link #remaining()} units if no
	 * further request comes; {@code 0} when the whole quota is left; when rejected, equal
	 * to {@link #retryAfterNanos()}.
	 */
	public long resetNanos() {
		return this.resetNanos;
	}

	/**
	 * Seconds until the limit admits more than {@code remaining}, rounded up, so that a
	 * client waiting that long never comes back too early.
	 */
	public long resetSeconds() {
		return Nanos.ceilSeconds(this.resetNanos);
	}

	@Override
	public Verdict asFallback() {
		return Verdict.fallbackOf(this);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Never one: a decision is one limit's.
	 */
	@Override
	public @Nullable Block block() {
		return null;
	}

	@Override
	public boolean blocked() {
		return false;
	}

	@Override
	public int limitCount() {
		return 1;
	}

	@Override
	public Decision decision(int index) {
		Objects.checkIndex(index, 1);
		return this;
	}

	@Override
	public int reportedIndex() {
		return 0;
	}

	@Override
	public Decision reported() {
		return this;
	}

	@Override
	public int[] reportOrder() {
		return new int[] { 0 };
	}

	@Override
	public boolean equals(Object other) {
		return this == other || other instanceof Decision decision && allowed() == decision.allowed()
				&& this.remaining == decision.remaining && this.limit == decision.limit
				&& this.resetNanos == decision.resetNanos && retryAfterNanos() == decision.retryAfterNanos()
				&& delayNanos() == decision.delayNanos();
	}

	@Override
	public int hashCode() {
		return Objects.hash(allowed(), this.remaining, this.limit, this.resetNanos, retryAfterNanos(),
				delayNanos());
	}

	@Override
	public String toString() {
		return "Decision[allowed=" + allowed() + ", remaining=" + this.remaining + ", limit=" + this.limit
				+ ", resetNanos=" + this.resetNanos + ", retryAfterNanos=" + retryAfterNanos()
				+ ((delayNanos() > 0) ? ", delayNanos=" + delayNanos() : "") + "]";
	}

}
