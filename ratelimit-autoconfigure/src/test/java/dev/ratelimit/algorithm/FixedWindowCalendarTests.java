package dev.ratelimit.algorithm;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.CalendarPeriods.Unit;
import org.junit.jupiter.api.Test;

import static dev.ratelimit.algorithm.CalendarPeriodsTests.at;
import static dev.ratelimit.algorithm.TokenBucketTests.admit;
import static dev.ratelimit.algorithm.TokenBucketTests.admitted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A fixed window counted in calendar periods, on instants read as a manual clock would
 * give them: its quota resets at the start of each period, and its reset and retry-after
 * are the time to the period's end, however long the period.
 */
class FixedWindowCalendarTests {

	private static final ZoneId UTC = ZoneId.of("UTC");

	private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

	private static final long SECOND = 1_000_000_000L;

	private static final long HOUR = 3600 * SECOND;

	private static final long DAY = 24 * HOUR;

	private static final FixedWindow MONTHLY = FixedWindow.inCalendar(3, CalendarPeriods.of(Unit.MONTH, UTC));

	@Test
	void aMonthlyQuotaResetsAtMidnightOnTheFirst() {
		LimitState state = MONTHLY.newState(at("2025-01-10T08:00:00Z"));
		assertThat(admitted(state, at("2025-01-10T08:00:00Z"), 3)).isEqualTo(3);
		Decision rejected = state.probe(at("2025-01-31T23:59:59Z"), 1);
		assertThat(rejected.allowed()).isFalse();
		assertThat(rejected.retryAfterNanos()).isEqualTo(SECOND).isEqualTo(rejected.resetNanos());
		Decision february = admit(state, at("2025-02-01T00:00:00Z"), 1);
		assertThat(february.allowed()).isTrue();
		assertThat(february.remaining()).isEqualTo(2);
		assertThat(february.resetNanos()).isEqualTo(28 * DAY);
	}

	@Test
	void theResetOfTheFirstRequestIsTheTimeToTheMonthsEnd() {
		LimitState state = MONTHLY.newState(at("2025-01-31T12:00:00Z"));
		assertThat(state.probe(at("2025-01-31T12:00:00Z"), 0).resetNanos()).isZero();
		assertThat(admit(state, at("2025-01-31T12:00:00Z"), 1).resetNanos()).isEqualTo(12 * HOUR);
	}

	@Test
	void aLeapFebruaryRunsToThe29th() {
		LimitState state = MONTHLY.newState(at("2024-02-28T23:00:00Z"));
		admitted(state, at("2024-02-28T23:00:00Z"), 3);
		// February 29th is still February: nothing left until March.
		Decision leapDay = state.probe(at("2024-02-29T00:00:00Z"), 1);
		assertThat(leapDay.allowed()).isFalse();
		assertThat(leapDay.retryAfterNanos()).isEqualTo(DAY);
		assertThat(admit(state, at("2024-03-01T00:00:00Z"), 1).allowed()).isTrue();
	}

	@Test
	void aCommonFebruaryEndsAfterThe28th() {
		LimitState state = MONTHLY.newState(at("2023-02-01T00:00:00Z"));
		assertThat(admit(state, at("2023-02-01T00:00:00Z"), 3).resetNanos()).isEqualTo(28 * DAY);
		assertThat(state.probe(at("2023-02-28T23:59:59.999999999Z"), 1).retryAfterNanos()).isEqualTo(1);
		assertThat(admit(state, at("2023-03-01T00:00:00Z"), 3).allowed()).isTrue();
	}

	@Test
	void theYearsEndEndsAMonthlyAndAYearlyQuota() {
		FixedWindow yearly = FixedWindow.inCalendar(3, CalendarPeriods.of(Unit.YEAR, UTC));
		for (FixedWindow limit : List.of(MONTHLY, yearly)) {
			LimitState state = limit.newState(at("2024-12-31T23:00:00Z"));
			assertThat(admit(state, at("2024-12-31T23:00:00Z"), 3).resetNanos()).as(limit.toString()).isEqualTo(HOUR);
			assertThat(state.probe(at("2024-12-31T23:59:59Z"), 1).allowed()).isFalse();
			assertThat(admit(state, at("2025-01-01T00:00:00Z"), 3).allowed()).isTrue();
		}
	}

	@Test
	void aWeeklyQuotaResetsOnMondayAtMidnight() {
		FixedWindow weekly = FixedWindow.inCalendar(3, CalendarPeriods.of(Unit.WEEK, UTC));
		// Wednesday 2025-01-01: the week ends on Monday the 6th.
		LimitState state = weekly.newState(at("2025-01-01T00:00:00Z"));
		assertThat(admit(state, at("2025-01-01T00:00:00Z"), 3).resetNanos()).isEqualTo(5 * DAY);
		assertThat(state.probe(at("2025-01-05T23:59:59Z"), 1).allowed()).isFalse();
		assertThat(admit(state, at("2025-01-06T00:00:00Z"), 3).allowed()).isTrue();
	}

	@Test
	void aDailyQuotaInParisResetsAtLocalMidnightThroughTheClockChanges() {
		FixedWindow daily = FixedWindow.inCalendar(1, CalendarPeriods.of(Unit.DAY, PARIS));
		// Sunday 2024-03-31 lasts 23 hours in Paris, from 23:00 UTC the day before.
		LimitState spring = daily.newState(at("2024-03-30T23:00:00Z"));
		assertThat(admit(spring, at("2024-03-30T23:00:00Z"), 1).resetNanos()).isEqualTo(23 * HOUR);
		assertThat(spring.probe(at("2024-03-31T21:59:59Z"), 1).retryAfterNanos()).isEqualTo(SECOND);
		assertThat(admit(spring, at("2024-03-31T22:00:00Z"), 1).allowed()).isTrue();
		// Sunday 2024-10-27 lasts 25 hours, from 22:00 UTC the day before.
		LimitState autumn = daily.newState(at("2024-10-26T22:00:00Z"));
		assertThat(admit(autumn, at("2024-10-26T22:00:00Z"), 1).resetNanos()).isEqualTo(25 * HOUR);
		assertThat(autumn.probe(at("2024-10-27T22:59:59Z"), 1).allowed()).isFalse();
		assertThat(admit(autumn, at("2024-10-27T23:00:00Z"), 1).allowed()).isTrue();
	}

	@Test
	void aClientMaySpendItsQuotaAtTheEndOfAPeriodAndAgainAtTheStartOfTheNext() {
		LimitState state = MONTHLY.newState(at("2025-01-31T23:59:59Z"));
		int admitted = admitted(state, at("2025-01-31T23:59:59Z"), 3) + admitted(state, at("2025-02-01T00:00:00Z"), 3);
		assertThat(admitted).isEqualTo(6);
	}

	@Test
	void aLateReadingCountsInThePeriodAlreadyCountedAndWaitsForItsWholeLength() {
		LimitState state = MONTHLY.newState(at("2025-02-01T00:00:00Z"));
		admit(state, at("2025-02-01T00:00:00Z"), 3);
		Decision late = state.probe(at("2025-01-31T23:59:59Z"), 1);
		assertThat(late.allowed()).isFalse();
		assertThat(late.retryAfterNanos()).isEqualTo(28 * DAY);
	}

	@Test
	void aRefundIsTakenOffOnlyInThePeriodItWasCountedIn() {
		LimitState state = MONTHLY.newState(at("2025-01-31T23:00:00Z"));
		admit(state, at("2025-01-31T23:00:00Z"), 2);
		state.refund(at("2025-01-31T23:30:00Z"), 1, at("2025-01-31T23:00:00Z"));
		assertThat(state.describe(at("2025-01-31T23:30:00Z"))).containsEntry("count", 1L);
		admit(state, at("2025-02-01T00:00:00Z"), 2);
		state.refund(at("2025-02-01T00:00:01Z"), 1, at("2025-01-31T23:59:00Z"));
		assertThat(state.describe(at("2025-02-01T00:00:01Z"))).containsEntry("count", 2L);
	}

	@Test
	void itsWindowIsTheLongestPeriodAndItsParametersTheCalendar() {
		FixedWindow limit = FixedWindow.inCalendar(10_000, CalendarPeriods.of(Unit.MONTH, PARIS));
		assertThat(limit.window()).isEqualTo(Duration.ofDays(31).plusHours(1));
		assertThat(limit.idleTimeout()).isEqualTo(limit.window());
		assertThat(limit.parameters()).containsExactly(Map.entry("limit", 10_000L),
				Map.entry("calendar", "month"), Map.entry("zone", "Europe/Paris"));
		assertThat(limit).isNotEqualTo(FixedWindow.inCalendar(10_000, CalendarPeriods.of(Unit.MONTH, UTC)))
			.isNotEqualTo(new FixedWindow(10_000, Duration.ofDays(31).plusHours(1)));
	}

	@Test
	void aWindowOtherThanTheLongestPeriodIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new FixedWindow(10, Duration.ofDays(30), CalendarPeriods.of(Unit.MONTH, UTC)))
			.withMessageContaining("window must be the longest of the month in UTC periods");
	}

}
