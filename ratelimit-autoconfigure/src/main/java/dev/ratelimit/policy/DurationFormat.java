package dev.ratelimit.policy;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Every way a duration is written back to people, in its largest whole unit of days,
 * hours, minutes, seconds, milliseconds or nanoseconds: as it is configured
 * ({@code 1d}, {@code 90s}, {@code 500ms}), so that what an operator reads back (in a
 * start-up error, in the actuator) is what they would write; and in words
 * ({@code day}, {@code 90 seconds}, {@code 500 ms}), for the sentences clients read.
 */
public final class DurationFormat {

	private static final long[] UNIT_NANOS = { 86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L,
			1_000_000_000L, 1_000_000L, 1L };

	private static final String[] UNIT_SUFFIXES = { "d", "h", "m", "s", "ms", "ns" };

	/**
	 * The units spelled out in words; the sub-second ones read as their suffixes.
	 */
	private static final @Nullable String[] UNIT_WORDS = { "day", "hour", "minute", "second", null, null };

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
		int unit = largestWholeUnit(nanos);
		return (nanos / UNIT_NANOS[unit]) + UNIT_SUFFIXES[unit];
	}

	/**
	 * {@code duration} in words, to follow "per": {@code second}, {@code 5 minutes},
	 * {@code 500 ms}.
	 */
	public static String inWords(Duration duration) {
		long nanos = duration.toNanos();
		int unit = largestWholeUnit(nanos);
		long amount = nanos / UNIT_NANOS[unit];
		String word = UNIT_WORDS[unit];
		if (word == null) {
			return amount + " " + UNIT_SUFFIXES[unit];
		}
		return (amount == 1) ? word : amount + " " + word + "s";
	}

	private static int largestWholeUnit(long nanos) {
		int unit = 0;
		while (nanos % UNIT_NANOS[unit] != 0) {
			unit++;
		}
		return unit;
	}

}
