package dev.ratelimit.algorithm;

import java.util.Map;

/**
 * One client's mutable state for one {@link Limit}. Not thread-safe: the store that
 * holds it makes each probe-and-commit atomic.
 */
public interface LimitState {

	/**
	 * Judge a request of {@code cost} units at {@code nowNanos} without consuming
	 * anything. When allowed, the decision's remaining and reset describe the state
	 * after {@link #commit}.
	 */
	Decision probe(long nowNanos, long cost);

	/**
	 * Consume {@code cost} units at {@code nowNanos}; only after a {@link #probe} at the
	 * same instant allowed it.
	 */
	void commit(long nowNanos, long cost);

	/**
	 * The algorithm's own state at {@code nowNanos} (tokens, queue level, window counts,
	 * log size), keyed by name, for display.
	 */
	Map<String, Number> describe(long nowNanos);

}
