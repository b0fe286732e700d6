package dev.ratelimit.algorithm;

/**
 * Source of time for every algorithm. Production uses {@link #SYSTEM}, a monotonic
 * clock, so wall-clock jumps (NTP, leap seconds) never refill or drain a bucket;
 * tests inject a clock they move by hand.
 */
@FunctionalInterface
public interface MonotonicClock {

	MonotonicClock SYSTEM = System::nanoTime;

	/**
	 * Current time in nanoseconds. Only differences between two readings are
	 * meaningful.
	 */
	long nanoTime();

}
