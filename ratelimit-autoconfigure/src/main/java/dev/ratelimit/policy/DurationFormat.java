package dev.ratelimit.policy;

import java.time.Duration;

/**
 * Durations written the way they are configured: the largest whole unit of
 * {@code d}, {@code h}, {@code m}, {@code s}, {@code ms}, {@code ns}, such as
 * {@code 1d}, {@code 90s} or {@code 500ms}, so that what an operator reads back (in a
 * start-up error, in the actuator) is what they would write.
 */
public final class DurationFormat {

	private static final long[] UNIT_NANOS = { 86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L,
			1_000_000_000L, 1_000_000L, 1L };

	private static final String[] UNIT_SUFFIXES = { "d", "h", "m", "s", "ms", "ns" };

	private DurationFormat() {
	}

	/**
	 * {@code duration} in configuration notation; zero is {@code 0s}.
	 */
	public static String asConfigured(Duration duration) {
		long nanos = duration.toNanos();
		if (nanos == 0) {
			return "0s";
		}
		for (int i = 0; i < UNIT_NANOS.length; i++) {
			if (nanos % UNIT_NANOS[i] == 0) {
				return (nanos / UNIT_NANOS[i]) + UNIT_SUFFIXES[i];
			}
		}
		throw new IllegalStateException("unreachable: every duration is a whole number of nanoseconds");
	}

}
