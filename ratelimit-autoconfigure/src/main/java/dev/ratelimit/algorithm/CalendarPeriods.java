package dev.ratelimit.algorithm;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneOffsetTransitionRule;
import java.time.zone.ZoneRules;
import java.util.Map;

import dev.ratelimit.support.ConfigName;
import org.jspecify.annotations.Nullable;

/**
 * Calendar periods in a time zone, days, weeks, months or years, that a window limit
 * counts in when it is configured with a {@code calendar} in place of a {@code window}:
 * a monthly quota resets at 00:00 on the 1st in its zone, not every 30 days from the
 * epoch as {@link AlignedWindows} would. A period starts at 00:00 local time on its first
 * day (at the first instant of that day where the zone's clocks skip midnight); a week
 * starts on Monday, as in ISO 8601. Periods differ in length: a month lasts 28 to 31
 * days, and a day in a zone that changes its clocks for daylight saving lasts 23 or 25
 * hours on the day it does.
 * <p>
 * A period is known by its index, counted from the one holding 1970-01-01 (that day's,
 * the week starting Monday 1969-12-29, January 1970, 1970), so that consecutive periods
 * have consecutive indexes, as aligned windows do, and the limits keep it in their state
 * as they keep a window's index. Instants are nanoseconds since the epoch, as the
 * algorithms' clock reads them ({@link dev.ratelimit.support.MonotonicClock}); the
 * calendar arithmetic is {@code java.time}'s, with the zone rules of the JVM's time-zone
 * database. The period a reading falls in is cached, so that a decision in the same
 * period as the last computes no date. Immutable apart from that cache, and thread-safe.
 */
public final class CalendarPeriods {

	private static final long NANOS_PER_SECOND = 1_000_000_000L;

	private final Unit unit;

	private final ZoneId zone;

	private final Duration longest;

	/**
	 * The latest period a reading fell in, with the end of the one after it.
	 */
	private volatile @Nullable Located located;

	private CalendarPeriods(Unit unit, ZoneId zone) {
		this.unit = unit;
		this.zone = zone;
		this.longest = unit.nominal.plus(largestShift(zone.getRules()));
	}

	/**
	 * The periods of {@code unit} in {@code zone}.
	 */
	public static CalendarPeriods of(Unit unit, ZoneId zone) {
		return new CalendarPeriods(unit, zone);
	}

	public Unit unit() {
		return this.unit;
	}

	public ZoneId zone() {
		return this.zone;
	}

	/**
	 * The longest a period may last: a day 24 hours, a week 7 days, a month 31 days, a
	 * year 366 days, each plus the largest change of the zone's clocks (an hour for
	 * daylight saving), so that a state kept that long after its last use has seen its
	 * period end, whichever period it was.
	 */
	public Duration longest() {
		return this.longest;
	}

	/**
	 * The index of the period {@code nowNanos} falls in.
	 */
	public long index(long nowNanos) {
		Located located = this.located;
		if (located != null && nowNanos >= located.start && nowNanos < located.end) {
			return located.index;
		}
		return locate(nowNanos).index;
	}

	/**
	 * Where the period at {@code index} starts, in nanoseconds since the epoch.
	 */
	public long start(long index) {
		Located located = this.located;
		if (located != null && index == located.index) {
			return located.start;
		}
		if (located != null && index == located.index + 1) {
			return located.end;
		}
		return startOf(index);
	}

	/**
	 * Where the period at {@code index} ends: where the next one starts.
	 */
	public long end(long index) {
		Located located = this.located;
		if (located != null && index == located.index) {
			return located.end;
		}
		if (located != null && index == located.index + 1) {
			return located.nextEnd;
		}
		return startOf(index + 1);
	}

	/**
	 * How long the period at {@code index} lasts, in nanoseconds.
	 */
	public long length(long index) {
		return end(index) - start(index);
	}

	/**
	 * Whether the period at {@code index} is still the one to count {@code nowNanos} in:
	 * the reading falls in it, or before it (a late reading), as
	 * {@link AlignedWindows#isCurrent} has it for aligned windows.
	 */
	boolean isCurrent(long index, long nowNanos) {
		return nowNanos < end(index);
	}

	/**
	 * Nanoseconds elapsed in the period at {@code index}, {@code 0} for a late reading,
	 * as {@link AlignedWindows#elapsed}.
	 */
	long elapsed(long index, long nowNanos) {
		return Math.max(0, nowNanos - start(index));
	}

	/**
	 * A window limit's parameters for display, as configured: its {@code window}, or its
	 * {@code calendar} and {@code zone}.
	 */
	static void putParameters(Map<String, Object> parameters, Duration window, @Nullable CalendarPeriods calendar) {
		if (calendar == null) {
			parameters.put("window", window);
		}
		else {
			parameters.put("calendar", calendar.unit.configName());
			parameters.put("zone", calendar.zone.getId());
		}
	}

	private Located locate(long nowNanos) {
		Instant instant = Instant.ofEpochSecond(Math.floorDiv(nowNanos, NANOS_PER_SECOND),
				Math.floorMod(nowNanos, NANOS_PER_SECOND));
		long index = this.unit.indexOf(LocalDate.ofInstant(instant, this.zone));
		Located located = new Located(index, startOf(index), startOf(index + 1), startOf(index + 2));
		Located cached = this.located;
		// Periods go forward: a late reading does not take the place of the current one.
		if (cached == null || index > cached.index) {
			this.located = located;
		}
		return located;
	}

	private long startOf(long index) {
		Instant start = this.unit.firstDay(index).atStartOfDay(this.zone).toInstant();
		return start.getEpochSecond() * NANOS_PER_SECOND + start.getNano();
	}

	/**
	 * The largest change the zone's clocks were or will be set by, in its history and in
	 * its rules for the years to come; zero for a zone of one offset, as UTC.
	 */
	private static Duration largestShift(ZoneRules rules) {
		Duration largest = Duration.ZERO;
		for (ZoneOffsetTransition transition : rules.getTransitions()) {
			largest = larger(largest, transition.getDuration());
		}
		for (ZoneOffsetTransitionRule rule : rules.getTransitionRules()) {
			largest = larger(largest, rule.createTransition(2000).getDuration());
		}
		return largest;
	}

	private static Duration larger(Duration largest, Duration shift) {
		Duration size = shift.abs();
		return (size.compareTo(largest) > 0) ? size : largest;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return this == other || other instanceof CalendarPeriods periods && this.unit == periods.unit
				&& this.zone.equals(periods.zone);
	}

	@Override
	public int hashCode() {
		return 31 * this.unit.hashCode() + this.zone.hashCode();
	}

	/**
	 * The unit and zone as configured: {@code month in Europe/Paris}.
	 */
	@Override
	public String toString() {
		return this.unit.configName() + " in " + this.zone.getId();
	}

	/**
	 * The length of calendar period a limit counts in, named as in configuration.
	 */
	public enum Unit implements ConfigName {

		DAY(Duration.ofDays(1)),

		/**
		 * Monday 00:00 to Monday 00:00, as ISO 8601's week.
		 */
		WEEK(Duration.ofDays(7)),

		MONTH(Duration.ofDays(31)),

		YEAR(Duration.ofDays(366));

		/**
		 * The epoch day of the Monday that starts the week of index 0: 1969-12-29, three
		 * days before the Thursday 1970-01-01.
		 */
		private static final long FIRST_MONDAY = -3;

		private static final int FIRST_YEAR = 1970;

		/**
		 * The longest such a period lasts when the clocks keep one offset.
		 */
		private final Duration nominal;

		Unit(Duration nominal) {
			this.nominal = nominal;
		}

		long indexOf(LocalDate day) {
			return switch (this) {
				case DAY -> day.toEpochDay();
				case WEEK -> Math.floorDiv(day.toEpochDay() - FIRST_MONDAY, 7);
				case MONTH -> (day.getYear() - FIRST_YEAR) * 12L + day.getMonthValue() - 1;
				case YEAR -> day.getYear() - FIRST_YEAR;
			};
		}

		LocalDate firstDay(long index) {
			return switch (this) {
				case DAY -> LocalDate.ofEpochDay(index);
				case WEEK -> LocalDate.ofEpochDay(FIRST_MONDAY + 7 * index);
				case MONTH -> LocalDate.of(Math.toIntExact(FIRST_YEAR + Math.floorDiv(index, 12)),
						(int) Math.floorMod(index, 12) + 1, 1);
				case YEAR -> LocalDate.of(Math.toIntExact(FIRST_YEAR + index), 1, 1);
			};
		}

	}

	/**
	 * A period located by a reading: its index, where it starts and ends, and where the
	 * one after it ends.
	 */
	private record Located(long index, long start, long end, long nextEnd) {
	}

}
