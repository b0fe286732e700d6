package dev.ratelimit.algorithm;

import java.time.Duration;
import java.time.ZoneId;

import dev.ratelimit.algorithm.CalendarPeriods.Unit;
import org.junit.jupiter.api.Test;

import static dev.ratelimit.algorithm.CalendarPeriodsTests.at;
import static dev.ratelimit.algorithm.TokenBucketTests.admit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A sliding window counter counted in calendar periods of unequal lengths: the previous
 * period's count weighs by the fraction of the current period not yet elapsed, and
 * fades through the next period at that period's own length.
 */
class SlidingWindowCounterCalendarTests {

	private static final ZoneId UTC = ZoneId.of("UTC");

	private static final long SECOND = 1_000_000_000L;

	private static final long HOUR = 3600 * SECOND;

	private static final long DAY = 24 * HOUR;

	private static final SlidingWindowCounter MONTHLY = SlidingWindowCounter.inCalendar(100,
			CalendarPeriods.of(Unit.MONTH, UTC));

	@Test
	void thePreviousMonthWeighsByTheShareOfThisMonthStillToCome() {
		LimitState state = MONTHLY.newState(at("2024-01-20T00:00:00Z"));
		admit(state, at("2024-01-20T00:00:00Z"), 62);
		// A week into February 2024, which lasts 29 days: 22 of them still to come.
		long now = at("2024-02-08T00:00:00Z");
		assertThat(state.describe(now)).containsEntry("previous", 62L)
			.containsEntry("estimate", Nanos.display(62 * 22 / 29.0));
		assertThat(state.probe(now, 0).remaining()).isEqualTo(52);
	}

	@Test
	void theEstimateRunsOnAcrossTheBoundaryOfTwoMonthsOfDifferentLengths() {
		LimitState state = MONTHLY.newState(at("2025-01-31T23:59:59Z"));
		admit(state, at("2025-01-31T23:59:59Z"), 50);
		assertThat(state.describe(at("2025-01-31T23:59:59.999999999Z"))).containsEntry("estimate", 50.0);
		assertThat(state.describe(at("2025-02-01T00:00:00Z"))).containsEntry("current", 0L)
			.containsEntry("previous", 50L)
			.containsEntry("estimate", 50.0);
		// Halfway through February 2025 (14 of 28 days), half of January's units weigh.
		assertThat(state.describe(at("2025-02-15T00:00:00Z"))).containsEntry("estimate", 25.0);
	}

	@Test
	void aQuotaSpentAtAMonthsEndComesBackThroughTheNextMonthAtItsLength() {
		LimitState state = MONTHLY.newState(at("2025-01-31T23:00:00Z"));
		admit(state, at("2025-01-31T23:00:00Z"), 100);
		// One unit fits once a hundredth of February (28 days) has passed, not of January.
		Decision rejected = state.probe(at("2025-01-31T23:00:00Z"), 1);
		assertThat(rejected.allowed()).isFalse();
		assertThat(rejected.retryAfterNanos()).isCloseTo(HOUR + 28 * DAY / 100, within(1_000L));
		Decision atFebruaryStart = state.probe(at("2025-02-01T00:00:00Z"), 1);
		assertThat(atFebruaryStart.retryAfterNanos()).isCloseTo(28 * DAY / 100, within(1_000L));
		long fits = at("2025-02-01T00:00:00Z") + atFebruaryStart.retryAfterNanos();
		assertThat(state.probe(fits - SECOND, 1).allowed()).isFalse();
		assertThat(admit(state, fits, 1).allowed()).isTrue();
	}

	@Test
	void aQuotaThatNeverFitsWaitsUntilTheEstimateIsZeroThroughTheNextMonth() {
		LimitState state = MONTHLY.newState(at("2024-01-31T00:00:00Z"));
		admit(state, at("2024-01-31T00:00:00Z"), 10);
		// The rest of January, then the whole of a leap February.
		Decision tooBig = state.probe(at("2024-01-31T00:00:00Z"), 101);
		assertThat(tooBig.retryAfterNanos()).isEqualTo(DAY + 29 * DAY);
	}

	@Test
	void aDayOf23HoursInParisWeighsTheDayBeforeOverItsOwn23Hours() {
		SlidingWindowCounter daily = SlidingWindowCounter.inCalendar(24,
				CalendarPeriods.of(Unit.DAY, ZoneId.of("Europe/Paris")));
		LimitState state = daily.newState(at("2024-03-30T12:00:00Z"));
		admit(state, at("2024-03-30T12:00:00Z"), 24);
		// Sunday 2024-03-31 in Paris runs from 23:00 UTC on the Saturday, for 23 hours:
		// halfway, 11.5 hours in, half the Saturday's units weigh.
		long halfway = at("2024-03-31T10:30:00Z");
		assertThat(state.describe(halfway)).containsEntry("estimate", 12.0);
		assertThat(state.probe(halfway, 0).remaining()).isEqualTo(12);
	}

	@Test
	void aRefundIsTakenOffThePeriodItWasCountedIn() {
		LimitState state = MONTHLY.newState(at("2025-01-31T23:00:00Z"));
		admit(state, at("2025-01-31T23:00:00Z"), 10);
		admit(state, at("2025-02-01T00:00:00Z"), 5);
		state.refund(at("2025-02-01T00:00:01Z"), 4, at("2025-01-31T23:00:00Z"));
		state.refund(at("2025-02-01T00:00:01Z"), 1, at("2025-02-01T00:00:00Z"));
		assertThat(state.describe(at("2025-02-01T00:00:01Z"))).containsEntry("previous", 6L)
			.containsEntry("current", 4L);
	}

	@Test
	void itForgetsItsCountsAfterTwoOfItsLongestPeriods() {
		assertThat(MONTHLY.window()).isEqualTo(Duration.ofDays(31));
		assertThat(MONTHLY.idleTimeout()).isEqualTo(Duration.ofDays(62));
		assertThat(MONTHLY.parameters()).containsEntry("calendar", "month")
			.containsEntry("zone", "UTC")
			.doesNotContainKey("window");
	}

}
