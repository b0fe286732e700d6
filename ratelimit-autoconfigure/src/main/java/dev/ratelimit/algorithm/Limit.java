package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * One configured limit: an algorithm with its parameters. Immutable and validated on
 * construction; it judges a client's state, kept in {@link StateWords} that belong to
 * the client, so that a client costs its numbers and not a copy of the parameters.
 */
public sealed interface Limit permits FixedWindow, SlidingWindowLog, SlidingWindowCounter, TokenBucket, LeakyBucket,
		Concurrency {

	Algorithm algorithm();

	/**
	 * The quota advertised to clients: the limit of a window algorithm, the capacity of
	 * a bucket.
	 */
	long quota();

	/**
	 * The window advertised to clients with the quota: the window of a window
	 * algorithm, the time a bucket takes to go from empty to full.
	 */
	Duration window();

	/**
	 * The calendar periods a window limit counts in, in place of windows aligned on the
	 * epoch; {@code null} for every other limit. Its {@link #window()} is then the longest
	 * a period lasts, and the window advertised to clients is the length of the period
	 * current when they are told.
	 */
	default @Nullable CalendarPeriods calendar() {
		return null;
	}

	/**
	 * How long a client must stay idle before its state is as good as new, so that a
	 * store may forget it: its {@link #window()}, after which a window has passed or a
	 * bucket has refilled or drained, unless the algorithm remembers longer.
	 */
	default Duration idleTimeout() {
		return window();
	}

	/**
	 * Nanoseconds from {@code nowNanos} until {@code state}, left idle, is as good as new,
	 * so that a store may forget it then and not before: the {@link #idleTimeout()} for a
	 * state within its quota, longer for a debt a {@link #charge} left (a bucket below
	 * empty, above full), which idleness must not forgive; never less than the idle
	 * timeout, so that it may be measured from any use. A window needs no more: what it
	 * counts past its limit is forgotten when its windows move on, within the idle
	 * timeout. A limit that {@linkplain #countsInFlight() counts requests in flight} is
	 * as good as new only once its slots are released, which no idle time makes happen:
	 * its store keeps a bucket holding slots whatever this answers.
	 * <p>
	 * Reads the state without changing it, so that a cache may call it without the
	 * store's lock, deciding how long to keep a bucket.
	 */
	default long idleNanos(StateWords state, long nowNanos) {
		return Nanos.saturated(idleTimeout());
	}

	/**
	 * How this limit shapes, holding a request it cannot admit at once until it would;
	 * {@code null} for a limit that meters, admitting at once or rejecting. Only the
	 * buckets shape: a window admits its whole limit again at each boundary, so requests
	 * held for it would all be released together.
	 */
	default @Nullable Shaping shaping() {
		return null;
	}

	/**
	 * The parameters as configured, keyed by their property names, for display.
	 */
	Map<String, Object> parameters();

	/**
	 * A fresh state, in an object of its own, for a client first seen at
	 * {@code nowNanos}.
	 */
	default LimitState newState(long nowNanos) {
		return new LimitState(this, nowNanos);
	}

	/**
	 * Whether this limit's state fits in the three words, with no extension.
	 */
	default boolean keepsOnlyWords() {
		return true;
	}

	/**
	 * Make {@code state} that of a client first seen at {@code nowNanos}.
	 */
	void start(StateWords state, long nowNanos);

	/**
	 * Judge a request of {@code cost} units at {@code nowNanos} without consuming
	 * anything. When allowed, the decision's remaining and reset describe the state
	 * after {@link #commit}. A limit past its quota ({@link #charge}) rejects every cost
	 * of one or more until it has room again, saying when the request would fit; a
	 * metering limit admits a probe of nothing (a peek) even then, with remaining
	 * {@code 0} and a reset when a unit fits again.
	 */
	Decision probe(StateWords state, long nowNanos, long cost);

	/**
	 * Consume {@code cost} units at {@code nowNanos}; only after a {@link #probe} at the
	 * same instant allowed it.
	 */
	void commit(StateWords state, long nowNanos, long cost);

	/**
	 * Judge a request of {@code cost} units at {@code nowNanos} and consume it when
	 * allowed: {@link #probe} then, when allowed, {@link #commit}, in one step.
	 */
	default Decision tryAcquire(StateWords state, long nowNanos, long cost) {
		Decision decision = probe(state, nowNanos, cost);
		if (decision.allowed()) {
			commit(state, nowNanos, cost);
		}
		return decision;
	}

	/**
	 * Give back {@code units} consumed at {@code consumedAtNanos} by a request that was
	 * never forwarded (a held request cancelled): taken off whatever still counts them
	 * at {@code nowNanos}, so that the state is what the forwarded requests alone
	 * explain. Units a window or a bucket no longer counts are not given back twice.
	 */
	void refund(StateWords state, long nowNanos, long units, long consumedAtNanos);

	/**
	 * Take {@code units} at {@code nowNanos} without judging them: a cost known only once
	 * the response is (a counted response, a cost the upstream reports). A limit may go
	 * past its quota (a bucket below empty); later requests are then refused until it has
	 * room again. A limit that {@linkplain #countsInFlight() counts requests in flight}
	 * takes nothing: it counts requests, not units.
	 */
	void charge(StateWords state, long nowNanos, long units);

	/**
	 * Whether this limit counts the requests in flight rather than units over time: a
	 * request admitted takes one slot, whatever its cost, until {@link #release}.
	 */
	default boolean countsInFlight() {
		return false;
	}

	/**
	 * Give back at {@code nowNanos} the slot of a request whose exchange has ended; for a
	 * limit that {@linkplain #countsInFlight() counts requests in flight}, called exactly
	 * once per request it admitted. Other limits keep their state as it is.
	 */
	default void release(StateWords state, long nowNanos) {
	}

	/**
	 * The algorithm's own state at {@code nowNanos} (tokens, queue level, window counts,
	 * log size), keyed by name, for display.
	 */
	Map<String, Number> describe(StateWords state, long nowNanos);

	/**
	 * Make {@code to}, a started state of this limit, carry over {@code from}, the same
	 * client's state under {@code previous}, the limit this one replaces on a live reload,
	 * at {@code nowNanos}: kept where the limit kept its meaning, re-based where it
	 * changed, left fresh where the old numbers mean nothing under this limit (another
	 * algorithm, for one). {@code from} is brought up to {@code nowNanos} and not judged
	 * again afterwards. Not called when {@code previous} equals this limit: its state is
	 * kept as it is.
	 */
	void carryOver(Limit previous, StateWords from, StateWords to, long nowNanos);

}
