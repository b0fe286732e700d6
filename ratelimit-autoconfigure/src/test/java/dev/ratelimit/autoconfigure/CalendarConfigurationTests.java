package dev.ratelimit.autoconfigure;

import java.time.ZoneId;
import java.util.List;

import dev.ratelimit.algorithm.CalendarPeriods;
import dev.ratelimit.algorithm.CalendarPeriods.Unit;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.policy.RateLimitPolicies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static dev.ratelimit.testsupport.StartUpProblems.problems;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calendar quotas as configured: {@code calendar} (day, week, month or year) in place of
 * {@code window} on a fixed window or a sliding window counter, in UTC unless a
 * {@code zone} is given; every other use stops start-up naming the property.
 */
class CalendarConfigurationTests {

	private static final String LIMIT = "ratelimit.policies.quota.tiers.anonymous[0].";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitDisabledAutoConfiguration.class));

	@Test
	void aMonthlyFixedWindowCountsInUtcMonths() {
		this.contextRunner
			.withPropertyValues(LIMIT + "algorithm=fixed-window", LIMIT + "limit=10000", LIMIT + "calendar=month")
			.run((context) -> assertThat(limits(context))
				.containsExactly(FixedWindow.inCalendar(10000, CalendarPeriods.of(Unit.MONTH, ZoneId.of("UTC")))));
	}

	@Test
	void aZoneTakesThePeriodsOfItsCalendar() {
		this.contextRunner
			.withPropertyValues(LIMIT + "algorithm=sliding-window-counter", LIMIT + "limit=500", LIMIT + "calendar=day",
					LIMIT + "zone=Europe/Paris")
			.run((context) -> assertThat(limits(context)).containsExactly(
					SlidingWindowCounter.inCalendar(500, CalendarPeriods.of(Unit.DAY, ZoneId.of("Europe/Paris")))));
	}

	@Test
	void everyUnitIsACalendar() {
		for (Unit unit : Unit.values()) {
			this.contextRunner
				.withPropertyValues(LIMIT + "algorithm=fixed-window", LIMIT + "limit=5",
						LIMIT + "calendar=" + unit.configName(), LIMIT + "zone=America/New_York")
				.run((context) -> assertThat(limits(context).get(0).calendar())
					.isEqualTo(CalendarPeriods.of(unit, ZoneId.of("America/New_York"))));
		}
	}

	@ParameterizedTest
	@CsvSource({ "monthly, month", "months, month", "Month, month", "daily, day", "wek, week", "annual, year" })
	void aMisspeltCalendarIsRefusedWithTheOneItWasLikelyMeantToBe(String written, String meant) {
		this.contextRunner
			.withPropertyValues(LIMIT + "algorithm=fixed-window", LIMIT + "limit=5", LIMIT + "calendar=" + written)
			.run((context) -> assertThat(problems(context)).containsExactly(LIMIT + "calendar: was '" + written
					+ "', must be day, week, month or year; did you mean " + meant + "?"));
	}

	@Test
	void anUnknownCalendarIsRefusedWithTheUnits() {
		this.contextRunner
			.withPropertyValues(LIMIT + "algorithm=fixed-window", LIMIT + "limit=5", LIMIT + "calendar=fortnight")
			.run((context) -> assertThat(problems(context))
				.containsExactly(LIMIT + "calendar: was 'fortnight', must be day, week, month or year"));
	}

	@Test
	void aCalendarWithAWindowIsRefused() {
		this.contextRunner
			.withPropertyValues(LIMIT + "algorithm=fixed-window", LIMIT + "limit=5", LIMIT + "calendar=month",
					LIMIT + "window=30d")
			.run((context) -> assertThat(problems(context)).containsExactly(LIMIT + "calendar: was 'month', must not "
					+ "be set together with window (30d): a calendar period's length is its own; set one of them"));
	}

	@Test
	void aZoneWithoutACalendarIsRefused() {
		this.contextRunner
			.withPropertyValues(LIMIT + "algorithm=fixed-window", LIMIT + "limit=5", LIMIT + "window=1d",
					LIMIT + "zone=Europe/Paris")
			.run((context) -> assertThat(problems(context)).containsExactly(LIMIT + "zone: was 'Europe/Paris', "
					+ "must not be set without calendar: it is the time zone of the calendar periods a fixed-window "
					+ "or sliding-window-counter counts in"));
	}

	@ParameterizedTest
	@CsvSource({ "Europe/Pari, '; did you mean Europe/Paris?'", "europe/paris, '; did you mean Europe/Paris?'",
			"New_York, '; did you mean America/New_York?'", "Mars/Olympus_Mons, ''" })
	void aZoneThatDoesNotExistIsRefused(String zone, String suggestion) {
		this.contextRunner
			.withPropertyValues(LIMIT + "algorithm=fixed-window", LIMIT + "limit=5", LIMIT + "calendar=month",
					LIMIT + "zone=" + zone)
			.run((context) -> assertThat(problems(context)).containsExactly(LIMIT + "zone: was '" + zone + "', "
					+ "must be a time-zone id of the IANA database, as Europe/Paris or America/New_York, or UTC"
					+ suggestion));
	}

	@ParameterizedTest
	@CsvSource({ "sliding-window-log, limit=5, window=1m", "token-bucket, capacity=5, refill-rate=1",
			"leaky-bucket, capacity=5, drain-rate=1", "concurrency, limit=5, limit=5" })
	void anAlgorithmThatCountsInNoCalendarPeriodsRefusesACalendar(String algorithm, String first, String second) {
		this.contextRunner
			.withPropertyValues(LIMIT + "algorithm=" + algorithm, LIMIT + first, LIMIT + second,
					LIMIT + "calendar=month")
			.run((context) -> assertThat(problems(context)).containsExactly(LIMIT + "calendar: was 'month', must not "
					+ "be set for " + algorithm + ": only fixed-window and sliding-window-counter count in calendar "
					+ "periods"));
	}

	@Test
	void aWindowOrACalendarMustBeSet() {
		this.contextRunner.withPropertyValues(LIMIT + "algorithm=fixed-window", LIMIT + "limit=5")
			.run((context) -> assertThat(problems(context)).containsExactly(
					LIMIT + "window: was not set, must be set for fixed-window, which takes limit and window"));
	}

	private static List<Limit> limits(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		return context.getBean(RateLimitPolicies.class).policy("quota").defaultTier().limits();
	}

}
