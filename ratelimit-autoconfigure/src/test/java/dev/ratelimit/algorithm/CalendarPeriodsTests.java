package dev.ratelimit.algorithm;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import dev.ratelimit.algorithm.CalendarPeriods.Unit;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calendar periods located by instants: where each starts and ends across month and year
 * ends, in leap and common years, for ISO weeks, and in a zone whose days last 23 or 25
 * hours when its clocks change.
 */
class CalendarPeriodsTests {

	private static final ZoneId UTC = ZoneId.of("UTC");

	private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

	private static final long HOUR = Duration.ofHours(1).toNanos();

	private static final long DAY = Duration.ofDays(1).toNanos();

	@Test
	void aMonthEndsAtMidnightOnTheFirstOfTheNext() {
		CalendarPeriods months = CalendarPeriods.of(Unit.MONTH, UTC);
		long january = months.index(at("2025-01-31T23:59:59.999999999Z"));
		assertThat(months.start(january)).isEqualTo(at("2025-01-01T00:00:00Z"));
		assertThat(months.end(january)).isEqualTo(at("2025-02-01T00:00:00Z"));
		assertThat(months.index(at("2025-02-01T00:00:00Z"))).isEqualTo(january + 1);
		assertThat(months.length(january)).isEqualTo(31 * DAY);
	}

	@Test
	void februaryLasts29DaysInALeapYearAnd28Otherwise() {
		CalendarPeriods months = CalendarPeriods.of(Unit.MONTH, UTC);
		long leap = months.index(at("2024-02-28T23:59:59Z"));
		assertThat(months.index(at("2024-02-29T12:00:00Z"))).isEqualTo(leap);
		assertThat(months.end(leap)).isEqualTo(at("2024-03-01T00:00:00Z"));
		assertThat(months.length(leap)).isEqualTo(29 * DAY);
		long common = months.index(at("2023-02-28T23:59:59.999999999Z"));
		assertThat(months.index(at("2023-03-01T00:00:00Z"))).isEqualTo(common + 1);
		assertThat(months.length(common)).isEqualTo(28 * DAY);
		CalendarPeriods years = CalendarPeriods.of(Unit.YEAR, UTC);
		assertThat(years.length(years.index(at("2024-07-01T00:00:00Z")))).isEqualTo(366 * DAY);
		assertThat(years.length(years.index(at("2023-07-01T00:00:00Z")))).isEqualTo(365 * DAY);
	}

	@Test
	void decemberThe31stEndsTheMonthAndTheYear() {
		CalendarPeriods months = CalendarPeriods.of(Unit.MONTH, UTC);
		CalendarPeriods years = CalendarPeriods.of(Unit.YEAR, UTC);
		long lastInstant = at("2024-12-31T23:59:59.999999999Z");
		long newYear = at("2025-01-01T00:00:00Z");
		assertThat(months.index(newYear)).isEqualTo(months.index(lastInstant) + 1);
		assertThat(months.end(months.index(lastInstant))).isEqualTo(newYear);
		assertThat(years.index(newYear)).isEqualTo(years.index(lastInstant) + 1);
		assertThat(years.start(years.index(newYear))).isEqualTo(newYear);
	}

	@Test
	void aWeekRunsFromMondayToMondayAcrossTheYearsEnd() {
		CalendarPeriods weeks = CalendarPeriods.of(Unit.WEEK, UTC);
		// Monday 2024-12-30 starts the week of 2025-01-01.
		long sunday = at("2024-12-29T23:59:59Z");
		long week = weeks.index(at("2025-01-01T12:00:00Z"));
		assertThat(weeks.start(week)).isEqualTo(at("2024-12-30T00:00:00Z"));
		assertThat(weeks.end(week)).isEqualTo(at("2025-01-06T00:00:00Z"));
		assertThat(weeks.index(sunday)).isEqualTo(week - 1);
		assertThat(weeks.length(week)).isEqualTo(7 * DAY);
	}

	@Test
	void indexesCountFromThePeriodOfTheEpochsFirstDay() {
		long epoch = 0;
		assertThat(CalendarPeriods.of(Unit.DAY, UTC).index(epoch)).isZero();
		assertThat(CalendarPeriods.of(Unit.MONTH, UTC).index(epoch)).isZero();
		assertThat(CalendarPeriods.of(Unit.YEAR, UTC).index(epoch)).isZero();
		CalendarPeriods weeks = CalendarPeriods.of(Unit.WEEK, UTC);
		assertThat(weeks.index(epoch)).isZero();
		assertThat(weeks.start(0)).isEqualTo(at("1969-12-29T00:00:00Z"));
		assertThat(CalendarPeriods.of(Unit.MONTH, UTC).index(-1)).isEqualTo(-1);
		assertThat(CalendarPeriods.of(Unit.MONTH, UTC).start(-1)).isEqualTo(at("1969-12-01T00:00:00Z"));
		assertThat(CalendarPeriods.of(Unit.MONTH, UTC).index(at("2025-03-15T00:00:00Z"))).isEqualTo(55 * 12 + 2);
	}

	@Test
	void aDayInParisLasts23HoursWhenTheClocksGoForwardAnd25WhenTheyGoBack() {
		CalendarPeriods days = CalendarPeriods.of(Unit.DAY, PARIS);
		// Sunday 2024-03-31: 02:00 becomes 03:00; Sunday 2024-10-27: 03:00 becomes 02:00.
		long spring = days.index(at("2024-03-31T12:00:00Z"));
		assertThat(days.start(spring)).isEqualTo(at("2024-03-30T23:00:00Z"));
		assertThat(days.end(spring)).isEqualTo(at("2024-03-31T22:00:00Z"));
		assertThat(days.length(spring)).isEqualTo(23 * HOUR);
		long autumn = days.index(at("2024-10-27T12:00:00Z"));
		assertThat(days.start(autumn)).isEqualTo(at("2024-10-26T22:00:00Z"));
		assertThat(days.length(autumn)).isEqualTo(25 * HOUR);
		// 23:30 UTC on the Saturday is already Sunday in Paris.
		assertThat(days.index(at("2024-03-30T23:30:00Z"))).isEqualTo(spring);
		CalendarPeriods months = CalendarPeriods.of(Unit.MONTH, PARIS);
		assertThat(months.length(months.index(at("2024-03-15T00:00:00Z")))).isEqualTo(31 * DAY - HOUR);
		assertThat(months.length(months.index(at("2024-10-15T00:00:00Z")))).isEqualTo(31 * DAY + HOUR);
	}

	@Test
	void aDayStartsAtItsFirstInstantWhereTheClocksSkipMidnight() {
		// Chile's clocks went from Saturday 24:00 to Sunday 01:00 on 2024-09-08.
		CalendarPeriods days = CalendarPeriods.of(Unit.DAY, ZoneId.of("America/Santiago"));
		long sunday = days.index(at("2024-09-08T12:00:00Z"));
		assertThat(days.start(sunday)).isEqualTo(at("2024-09-08T04:00:00Z"));
		// Saturday ran to its 24:00, the Sunday from its 01:00.
		assertThat(days.length(sunday - 1)).isEqualTo(24 * HOUR);
		assertThat(days.length(sunday)).isEqualTo(23 * HOUR);
	}

	@Test
	void theLongestPeriodAddsTheZonesLargestClockChange() {
		assertThat(CalendarPeriods.of(Unit.MONTH, UTC).longest()).isEqualTo(Duration.ofDays(31));
		assertThat(CalendarPeriods.of(Unit.YEAR, UTC).longest()).isEqualTo(Duration.ofDays(366));
		assertThat(CalendarPeriods.of(Unit.WEEK, UTC).longest()).isEqualTo(Duration.ofDays(7));
		assertThat(CalendarPeriods.of(Unit.DAY, PARIS).longest()).isEqualTo(Duration.ofHours(25));
		assertThat(CalendarPeriods.of(Unit.MONTH, PARIS).longest()).isEqualTo(Duration.ofDays(31).plusHours(1));
	}

	@Test
	void anEarlierReadingIsLocatedWithoutLosingTheCurrentPeriod() {
		CalendarPeriods months = CalendarPeriods.of(Unit.MONTH, UTC);
		long march = months.index(at("2025-03-10T00:00:00Z"));
		assertThat(months.index(at("2025-01-10T00:00:00Z"))).isEqualTo(march - 2);
		assertThat(months.start(march - 2)).isEqualTo(at("2025-01-01T00:00:00Z"));
		assertThat(months.index(at("2025-03-31T23:59:59Z"))).isEqualTo(march);
		assertThat(months.start(march + 1)).isEqualTo(at("2025-04-01T00:00:00Z"));
		assertThat(months.end(march + 1)).isEqualTo(at("2025-05-01T00:00:00Z"));
		assertThat(months.end(march + 5)).isEqualTo(at("2025-09-01T00:00:00Z"));
	}

	@Test
	void periodsOfOneUnitAndZoneAreEqual() {
		assertThat(CalendarPeriods.of(Unit.MONTH, PARIS)).isEqualTo(CalendarPeriods.of(Unit.MONTH, PARIS))
			.hasSameHashCodeAs(CalendarPeriods.of(Unit.MONTH, PARIS))
			.isNotEqualTo(CalendarPeriods.of(Unit.MONTH, UTC))
			.isNotEqualTo(CalendarPeriods.of(Unit.WEEK, PARIS))
			.hasToString("month in Europe/Paris");
	}

	static long at(String instant) {
		Instant parsed = Instant.parse(instant);
		return parsed.getEpochSecond() * 1_000_000_000L + parsed.getNano();
	}

}
