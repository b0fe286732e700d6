package dev.ratelimit.algorithm;

import java.time.Duration;

/**
 * Arithmetic on nanoseconds: the whole seconds that headers and clients are told, and,
 * for the continuous algorithms, whose state is a fractional number of units, the
 * rounding of units and instants.
 */
public final class Nanos {

	/**
	 * Nanoseconds in a second.
	 */
	public static final long PER_SECOND = 1_000_000_000L;

	/**
	 * Tolerance on unit counts, a millionth of a unit, so that floating error never
	 * costs a client a unit: one second at 3 per second gives exactly 3 tokens.
	 */
	static final double UNIT_EPSILON = 1e-6;

	/**
	 * Relative tolerance on computed instants, far above double rounding error (about
	 * 1e-16) and below ten nanoseconds for any duration up to a day, so that rounding
	 * error never pushes a retry-after one nanosecond late.
	 */
	private static final double NANOS_EPSILON = 1e-13;

	private Nanos() {
	}

	/**
	 * {@code nanos} in whole seconds, rounded up; {@code 0} when not positive.
	 */
	public static long ceilSeconds(long nanos) {
		if (nanos <= 0) {
			return 0;
		}
		return (nanos + PER_SECOND - 1) / PER_SECOND;
	}

	/**
	 * Whole units in {@code units}, never negative.
	 */
	static long wholeUnits(double units) {
		return Math.max(0, (long) Math.floor(units + UNIT_EPSILON));
	}

	/**
	 * {@code nanos} rounded up to a whole nanosecond, saturating, never negative.
	 */
	static long ceil(double nanos) {
		double rounded = Math.ceil(nanos - nanos * NANOS_EPSILON);
		return (rounded > 0) ? (long) rounded : 0;
	}

	/**
	 * {@code duration} in nanoseconds as a {@code double}, for the continuous
	 * algorithms' arithmetic: exact up to 2^53 ns (104 days), and computed without the
	 * overflow checks of {@link java.time.Duration#toNanos()}, which cost the decision's
	 * compiled code its size.
	 */
	static double of(Duration duration) {
		return duration.getSeconds() * (double) PER_SECOND + duration.getNano();
	}

	/**
	 * {@code duration}, a positive duration whose nanoseconds fit in a {@code long} (as
	 * {@link Validation#positiveDuration} checks), in whole nanoseconds: the same as
	 * {@link java.time.Duration#toNanos()}, without the overflow checks that cost the
	 * decision's compiled code its size.
	 */
	static long ofValidated(Duration duration) {
		return duration.getSeconds() * PER_SECOND + duration.getNano();
	}

	/**
	 * {@code duration} in whole nanoseconds, {@link Long#MAX_VALUE} when they do not fit.
	 */
	static long saturated(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

	/**
	 * Rounded to three decimals, for display.
	 */
	static double display(double value) {
		return Math.round(value * 1000.0) / 1000.0;
	}

}
