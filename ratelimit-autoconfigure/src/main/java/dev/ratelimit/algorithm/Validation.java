package dev.ratelimit.algorithm;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Checks of limit parameters. Messages name the parameter as it is configured, so
 * that the policy layer can prefix the property path.
 */
final class Validation {

	private Validation() {
	}

	static void positive(String name, long value) {
		if (value <= 0) {
			throw new IllegalArgumentException(name + " must be positive but was " + value);
		}
	}

	static void positiveRate(String name, double value) {
		if (!(value > 0) || Double.isInfinite(value)) {
			throw new IllegalArgumentException(name + " must be a positive number but was " + value);
		}
	}

	static void positiveDuration(String name, @Nullable Duration value) {
		if (value == null) {
			throw new IllegalArgumentException(name + " must be set");
		}
		if (value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(name + " must be a positive duration but was " + value);
		}
		try {
			value.toNanos();
		}
		catch (ArithmeticException ex) {
			throw new IllegalArgumentException(name + " must be at most " + Duration.ofNanos(Long.MAX_VALUE)
					+ " but was " + value);
		}
	}

	/**
	 * The window of a limit counted in calendar periods is the longest a period lasts,
	 * which its idle timeout is.
	 */
	static void longestPeriod(Duration window, @Nullable CalendarPeriods calendar) {
		if (calendar != null && !window.equals(calendar.longest())) {
			throw new IllegalArgumentException("window must be the longest of the " + calendar + " periods ("
					+ calendar.longest() + ") but was " + window);
		}
	}

}
