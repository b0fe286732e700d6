package dev.ratelimit.algorithm;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * One client's states for the limits of a tier, judged all-or-nothing: a request is
 * consumed by every limit or by none. Not thread-safe: the store that holds it makes
 * each call atomic.
 * <p>
 * The bucket of a tier of one limit is that limit's state itself, in its own words; of
 * several, its extension holds a {@link LimitState} per limit. A store subclasses it to
 * keep the client's identity in the same object.
 */
public abstract class Bucket extends StateWords {

	/**
	 * The request count of a bucket another bucket took over from.
	 */
	private static final long RETIRED = -1;

	private long requests;

	protected Bucket() {
	}

	/**
	 * A bucket of its own for a client first seen at {@code nowNanos}.
	 * @param limits the tier's limits, never empty
	 * @param nowNanos the clock's reading
	 */
	public static Bucket of(List<Limit> limits, long nowNanos) {
		if (limits.isEmpty()) {
			throw new IllegalArgumentException("a bucket needs at least one limit");
		}
		Bucket bucket = new OwnLimits(List.copyOf(limits));
		bucket.start(nowNanos);
		return bucket;
	}

	/**
	 * Whether the bucket of {@code limits} keeps only words, with no extension: a tier
	 * of one limit whose state fits in them.
	 */
	public static boolean keepsOnlyWords(List<Limit> limits) {
		return limits.size() == 1 && limits.get(0).keepsOnlyWords();
	}

	/**
	 * The limits, in the tier's order, never empty; the same list on every call.
	 */
	public abstract List<Limit> limits();

	/**
	 * Make this the bucket of a client first seen at {@code nowNanos}: once, before any
	 * other call.
	 */
	protected final void start(long nowNanos) {
		List<Limit> limits = limits();
		if (limits.size() == 1) {
			limits.get(0).start(this, nowNanos);
			return;
		}
		LimitState[] states = new LimitState[limits.size()];
		for (int i = 0; i < states.length; i++) {
			states[i] = limits.get(i).newState(nowNanos);
		}
		extension(states);
	}

	/**
	 * Judge a request of {@code cost} units at {@code nowNanos} against every limit,
	 * consuming it from all of them only when all admit it. On a rejection, the limits
	 * that would have admitted the request report what they hold, since they consume
	 * nothing.
	 */
	public final Verdict tryAcquire(long nowNanos, long cost) {
		this.requests++;
		Limit only = onlyLimit();
		if (only != null) {
			return Verdict.of(only.tryAcquire(this, nowNanos, cost));
		}
		return tryAcquireAll(nowNanos, cost);
	}

	/**
	 * The tier's limit when it has one only, else {@code null}; a subclass that knows it
	 * without looking at the list answers it at once.
	 */
	protected @Nullable Limit onlyLimit() {
		List<Limit> limits = limits();
		return (limits.size() == 1) ? limits.get(0) : null;
	}

	/**
	 * {@link #tryAcquire} for a tier of several limits, apart so that the common path of
	 * one limit compiles small enough for the JIT to inline it into its callers.
	 */
	private Verdict tryAcquireAll(long nowNanos, long cost) {
		LimitState[] states = states();
		Decision[] decisions = new Decision[states.length];
		boolean allowed = true;
		for (int i = 0; i < states.length; i++) {
			decisions[i] = states[i].probe(nowNanos, cost);
			allowed &= decisions[i].allowed();
		}
		if (allowed) {
			for (LimitState state : states) {
				state.commit(nowNanos, cost);
			}
		}
		else {
			for (int i = 0; i < states.length; i++) {
				if (decisions[i].allowed()) {
					decisions[i] = states[i].probe(nowNanos, 0);
				}
			}
		}
		return Verdict.of(decisions);
	}

	/**
	 * Judge a request of {@code cost} units at {@code nowNanos} as {@link #tryAcquire}
	 * does, counting it, but when every limit admits it, take it only from the limits
	 * that {@linkplain Limit#countsInFlight() count requests in flight}: the others check
	 * that they have room and take nothing, the cost being taken later, if at all, by
	 * {@link #settle}. An admission reports those limits as they stand, the cost not
	 * taken (their peek), and the limits counting in flight after taking their slot; a
	 * rejection is reported as {@link #tryAcquire} reports it.
	 */
	public final Verdict check(long nowNanos, long cost) {
		this.requests++;
		List<Limit> limits = limits();
		if (limits.size() == 1) {
			Limit only = limits.get(0);
			Decision decision = only.probe(this, nowNanos, cost);
			if (decision.allowed()) {
				if (only.countsInFlight()) {
					only.commit(this, nowNanos, cost);
				}
				else {
					decision = only.probe(this, nowNanos, 0);
				}
			}
			return Verdict.of(decision);
		}
		LimitState[] states = states();
		Decision[] decisions = new Decision[states.length];
		boolean allowed = true;
		for (int i = 0; i < states.length; i++) {
			decisions[i] = states[i].probe(nowNanos, cost);
			allowed &= decisions[i].allowed();
		}
		for (int i = 0; i < states.length; i++) {
			if (allowed && limits.get(i).countsInFlight()) {
				states[i].commit(nowNanos, cost);
			}
			else if (decisions[i].allowed()) {
				decisions[i] = states[i].probe(nowNanos, 0);
			}
		}
		return Verdict.of(decisions);
	}

	/**
	 * Settle at {@code nowNanos} what a request's exchange changes, in every limit: a
	 * positive {@code units} is {@linkplain Limit#charge charged} (taken without judging,
	 * past the quota if need be), a negative one {@linkplain Limit#refund given back}
	 * where it still counts as consumed at {@code consumedAtNanos}; when the exchange
	 * has {@code ended}, every limit {@linkplain Limit#release releases} the request's
	 * slot. Nothing is judged, and the request is not counted again.
	 */
	public final void settle(long nowNanos, long units, long consumedAtNanos, boolean ended) {
		List<Limit> limits = limits();
		for (int i = 0; i < limits.size(); i++) {
			Limit limit = limits.get(i);
			StateWords state = state(i);
			if (units > 0) {
				limit.charge(state, nowNanos, units);
			}
			else if (units < 0) {
				limit.refund(state, nowNanos, -units, consumedAtNanos);
			}
			if (ended) {
				limit.release(state, nowNanos);
			}
		}
	}

	/**
	 * Make this started bucket take over {@code previous}, a bucket of the same client
	 * under other limits, at {@code nowNanos}: each limit keeps the state of an equal
	 * previous limit at the same position as it is, or carries it over as its algorithm
	 * has it ({@link Limit#carryOver}); a limit with none stays fresh. The request count
	 * carries over, and {@code previous} is {@linkplain #retired() retired}.
	 */
	public final void takeOver(Bucket previous, long nowNanos) {
		List<Limit> limits = limits();
		List<Limit> previousLimits = previous.limits();
		for (int i = 0; i < Math.min(limits.size(), previousLimits.size()); i++) {
			Limit limit = limits.get(i);
			Limit previousLimit = previousLimits.get(i);
			if (limit.equals(previousLimit)) {
				previous.state(i).copyTo(state(i));
			}
			else {
				limit.carryOver(previousLimit, previous.state(i), state(i), nowNanos);
			}
		}
		this.requests = previous.requests;
		previous.requests = RETIRED;
		// A retired bucket may still be referenced (as a cache's key): keep it small.
		if (previous.extension() != null) {
			previous.extension(null);
		}
	}

	/**
	 * Whether another bucket took this one over: no request may be judged against it any
	 * more.
	 */
	public final boolean retired() {
		return this.requests == RETIRED;
	}

	/**
	 * Requests judged since the bucket was created, admitted or not.
	 */
	public final long requests() {
		return this.requests;
	}

	/**
	 * Where every limit stands at {@code nowNanos}, consuming nothing: the verdict of
	 * their {@linkplain #peek(int, long) peeks}.
	 */
	public final Verdict peek(long nowNanos) {
		Decision[] decisions = new Decision[limits().size()];
		for (int i = 0; i < decisions.length; i++) {
			decisions[i] = peek(i, nowNanos);
		}
		return Verdict.of(decisions);
	}

	/**
	 * The requests in flight, in whichever of the limits
	 * {@linkplain Limit#countsInFlight() counts them} holds the most; {@code 0} when none
	 * does, and for a {@linkplain #retired() retired} bucket. Read without the store's
	 * lock by a cache deciding how long to keep the bucket, so it copes with a bucket
	 * another thread is retiring.
	 */
	public final long inFlight() {
		List<Limit> limits = limits();
		if (retired()) {
			return 0;
		}
		if (limits.size() == 1) {
			return (limits.get(0) instanceof Concurrency) ? Concurrency.inFlight(this) : 0;
		}
		// Read once: retiring a bucket drops its states.
		LimitState[] states = (LimitState[]) extension();
		long inFlight = 0;
		for (int i = 0; states != null && i < states.length; i++) {
			if (limits.get(i) instanceof Concurrency) {
				inFlight = Math.max(inFlight, Concurrency.inFlight(states[i]));
			}
		}
		return inFlight;
	}

	/**
	 * Nanoseconds from {@code nowNanos} until every limit, left idle, is as good as new:
	 * the longest of their {@linkplain Limit#idleNanos idle times}, each at least its
	 * limit's idle timeout and longer while it is in debt. Read without the store's lock
	 * by a cache deciding how long to keep the bucket, as {@link #inFlight()} is, so it
	 * copes with a bucket another thread is retiring: {@code 0} once its states are gone.
	 */
	public final long idleNanos(long nowNanos) {
		List<Limit> limits = limits();
		if (limits.size() == 1) {
			return limits.get(0).idleNanos(this, nowNanos);
		}
		// Read once: retiring a bucket drops its states.
		LimitState[] states = (LimitState[]) extension();
		long idle = 0;
		for (int i = 0; states != null && i < states.length; i++) {
			idle = Math.max(idle, limits.get(i).idleNanos(states[i], nowNanos));
		}
		return idle;
	}

	/**
	 * Where the limit at {@code index} stands at {@code nowNanos}, consuming nothing:
	 * its remaining units and time until reset.
	 */
	public final Decision peek(int index, long nowNanos) {
		List<Limit> limits = limits();
		return (limits.size() == 1) ? limits.get(index).probe(this, nowNanos, 0) : states()[index].probe(nowNanos, 0);
	}

	/**
	 * The algorithm's own state of the limit at {@code index} at {@code nowNanos}.
	 */
	public final Map<String, Number> describe(int index, long nowNanos) {
		List<Limit> limits = limits();
		return (limits.size() == 1) ? limits.get(index).describe(this, nowNanos) : states()[index].describe(nowNanos);
	}

	private StateWords state(int index) {
		return (limits().size() == 1) ? this : states()[index];
	}

	private LimitState[] states() {
		return (LimitState[]) extension();
	}

	/**
	 * A bucket that keeps its limits and extension itself.
	 */
	private static final class OwnLimits extends Bucket {

		private final List<Limit> limits;

		private @Nullable Object extension;

		OwnLimits(List<Limit> limits) {
			this.limits = limits;
		}

		@Override
		public List<Limit> limits() {
			return this.limits;
		}

		@Override
		protected @Nullable Object extension() {
			return this.extension;
		}

		@Override
		protected void extension(@Nullable Object extension) {
			this.extension = extension;
		}

	}

}
