package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.algorithm.Concurrency;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.policy.RateLimitPolicies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static dev.ratelimit.testsupport.StartUpProblems.problems;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A concurrency limit as configured: {@code algorithm: concurrency} with a positive
 * {@code limit} and nothing else, alone or beside rate limits in a tier, whatever the
 * policy's cost, on a store that settles after the response; anything else stops
 * start-up naming the property.
 */
class ConcurrencyConfigurationTests {

	private static final String TIER = "ratelimit.policies.reports.tiers.anonymous";

	private static final String LIMIT = TIER + "[0].";

	private static final String TAKES = "must not be set for concurrency, which takes limit";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitDisabledAutoConfiguration.class));

	@Test
	void aConcurrencyLimitStartsWithItsLimit() {
		this.contextRunner.withPropertyValues(LIMIT + "algorithm=concurrency", LIMIT + "limit=4")
			.run((context) -> assertThat(limits(context)).containsExactly(new Concurrency(4)));
	}

	@Test
	void aTierCombinesItWithRateLimits() {
		this.contextRunner
			.withPropertyValues(LIMIT + "algorithm=concurrency", LIMIT + "limit=2",
					TIER + "[1].algorithm=fixed-window", TIER + "[1].limit=100", TIER + "[1].window=1m")
			.run((context) -> assertThat(limits(context)).containsExactly(new Concurrency(2),
					new FixedWindow(100, Duration.ofMinutes(1))));
	}

	@Test
	void aCostAboveTheLimitIsNoProblemSinceARequestTakesOneSlot() {
		this.contextRunner
			.withPropertyValues(LIMIT + "algorithm=concurrency", LIMIT + "limit=2", "ratelimit.policies.reports.cost=5",
					TIER + "[1].algorithm=fixed-window", TIER + "[1].limit=100", TIER + "[1].window=1m")
			.run((context) -> assertThat(limits(context)).first().isEqualTo(new Concurrency(2)));
	}

	@Test
	void aConcurrencyLimitWithoutItsLimitIsRefused() {
		this.contextRunner.withPropertyValues(LIMIT + "algorithm=concurrency")
			.run((context) -> assertThat(problems(context))
				.containsExactly(LIMIT + "limit: was not set, must be set for concurrency, which takes limit"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "0", "-1" })
	void aLimitThatIsNotPositiveIsRefused(String limit) {
		this.contextRunner.withPropertyValues(LIMIT + "algorithm=concurrency", LIMIT + "limit=" + limit)
			.run((context) -> assertThat(problems(context))
				.containsExactly(LIMIT + "limit: was " + limit + ", must be a positive number"));
	}

	@ParameterizedTest
	@CsvSource({ "window, 1m", "capacity, 5", "refill-rate, 2", "refill-period, 1s", "drain-rate, 2",
			"drain-period, 1s" })
	void aParameterOfAnotherAlgorithmIsRefused(String field, String value) {
		this.contextRunner
			.withPropertyValues(LIMIT + "algorithm=concurrency", LIMIT + "limit=4", LIMIT + field + "=" + value)
			.run((context) -> assertThat(problems(context))
				.containsExactly(LIMIT + field + ": was " + value + ", " + TAKES));
	}

	@Test
	void aConcurrencyLimitCannotShape() {
		this.contextRunner
			.withPropertyValues(LIMIT + "algorithm=concurrency", LIMIT + "limit=4", LIMIT + "shaping.max-delay=3s")
			.run((context) -> assertThat(problems(context))
				.containsExactly(LIMIT + "shaping: was {max-delay=3s}, " + TAKES));
	}

	@Test
	void aPolicyOnTheHybridStoreCannotLimitConcurrency() {
		this.contextRunner
			.withPropertyValues(LIMIT + "algorithm=concurrency", LIMIT + "limit=4",
					"ratelimit.policies.reports.store=hybrid")
			.run((context) -> assertThat(problems(context)).contains(LIMIT + "algorithm: was concurrency, must not "
					+ "be set for a policy on store hybrid, whose nodes each spend leases in their own memory and so "
					+ "cannot settle a request after its response; use store caffeine or redis"));
	}

	@Test
	void aMisspeltAlgorithmListsConcurrencyAmongTheAlgorithms() {
		this.contextRunner.withPropertyValues(LIMIT + "algorithm=concurency", LIMIT + "limit=4")
			.run((context) -> assertThat(problems(context)).containsExactly(LIMIT + "algorithm: was concurency, "
					+ "must be one of [fixed-window, sliding-window-log, sliding-window-counter, token-bucket, "
					+ "leaky-bucket, concurrency]"));
	}

	private static List<Limit> limits(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		return context.getBean(RateLimitPolicies.class).policy("reports").defaultTier().limits();
	}

}
