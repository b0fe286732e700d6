package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.Map;

/**
 * One configured limit: an algorithm with its parameters. Immutable and validated on
 * construction; it creates the mutable per-client {@link LimitState}.
 */
public sealed interface Limit permits FixedWindow, SlidingWindowLog, SlidingWindowCounter, TokenBucket, LeakyBucket {

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
	 * How long a client must stay idle before its state is as good as new, so that a
	 * store may forget it.
	 */
	Duration idleTimeout();

	/**
	 * A fresh state for a client first seen at {@code nowNanos}.
	 */
	LimitState newState(long nowNanos);

	/**
	 * The parameters as configured, keyed by their property names, for display.
	 */
	Map<String, Object> parameters();

}
