package dev.ratelimit.policy;

import java.time.Duration;
import java.util.Locale;

/**
 * Every way a duration is written back to people, in its largest whole unit of days,
 * hours, minutes, seconds, milliseconds or nanoseconds: as it is configured
 * ({@code 1d}, {@code 90s}, {@code 500ms}), so that what an operator reads back (in a
 * start-up error, in the actuator) is what they would write; and as an amount of a
 * unit, which the sentences clients read put in words (in their own language).
 */
public final class DurationFormat {

	private DurationFormat() {
	}

	/**
	 * {@code duration} in configuration notation; zero is {@code 0s}.
	 */
	public static String asConfigured(Duration duration) {
		if (duration.isZero()) {
			return "0s";
		}
		Amount amount = inLargestWholeUnit(duration);
		return amount.amount() + amount.unit().suffix;
	}

	/**
	 * {@code duration} as a whole number of the largest unit that divides it.
	 */
	public static Amount inLargestWholeUnit(Duration duration) {
		long nanos = duration.toNanos();
		for (Unit unit : Unit.values()) {
			if (nanos % unit.nanos == 0) {
				return new Amount(nanos / unit.nanos, unit);
			}
		}
		throw new IllegalStateException("Every duration is a whole number of nanoseconds");
	}

	/**
	 * A duration as a whole number of one unit.
	 *
	 * @param amount how many units
	 * @param unit which unit
	 */
	public record Amount(long amount, Unit unit) {
	}

	/**
	 * The units durations are written in, largest first.
	 */
	public enum Unit {

		DAYS(86_400_000_000_000L, "d"), HOURS(3_600_000_000_000L, "h"), MINUTES(60_000_000_000L, "m"),
		SECONDS(1_000_000_000L, "s"), MILLISECONDS(1_000_000L, "ms"), NANOSECONDS(1L, "ns");

		private final long nanos;

		private final String suffix;

		Unit(long nanos, String suffix) {
			this.nanos = nanos;
			this.suffix = suffix;
		}

		/**
		 * The unit's plural name in lower case ({@code minutes}), as message codes name it.
		 */
		public String pluralName() {
			return name().toLowerCase(Locale.ROOT);
		}

	}

}
