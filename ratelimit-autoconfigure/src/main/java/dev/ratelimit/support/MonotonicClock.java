package dev.ratelimit.support;

/**
 * Source of time for every algorithm: nanoseconds on a timeline that counts from the
 * Unix epoch, so that windows aligned on multiples of their length start where users
 * expect them to (a {@code 1d} window at 00:00 UTC) and every node of a fleet, and the
 * Redis store, which counts in Redis time, shares the same windows.
 * <p>
 * Production uses {@link #SYSTEM}: the wall clock is read once, then time advances with
 * the monotonic {@link System#nanoTime()}, so a wall-clock jump (NTP, a manual change)
 * never refills a bucket, drains a queue or moves a window. Tests inject a clock they
 * move by hand.
 */
@FunctionalInterface
public interface MonotonicClock {

	/**
	 * The wall clock's reading when this class was initialised, advanced by
	 * {@link System#nanoTime()}.
	 */
	MonotonicClock SYSTEM = EpochAnchoredClock.system();

	/**
	 * Current time in nanoseconds since the Unix epoch, never going backwards.
	 */
	long nanoTime();

}
