package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Shaping;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.web.HeldRequests;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static dev.ratelimit.testsupport.StartUpProblems.problems;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shaping as configured: on a leaky or token bucket, with a positive
 * {@code shaping.max-delay}, a leaky bucket's {@code delay-after} below its capacity, on
 * a store that keeps one schedule, and a positive
 * {@code ratelimit.shaping.max-held-requests}; anything else stops start-up naming the
 * property.
 */
class ShapingConfigurationTests {

	private static final String LIMIT = "ratelimit.policies.payments.tiers.anonymous[0].";

	private static final String[] QUEUE = { LIMIT + "algorithm=leaky-bucket", LIMIT + "capacity=5",
			LIMIT + "drain-rate=2" };

	private static final String[] RESERVATIONS = { LIMIT + "algorithm=token-bucket", LIMIT + "capacity=5",
			LIMIT + "refill-rate=2" };

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitDisabledAutoConfiguration.class));

	@Test
	void aShapingLeakyBucketStartsWithItsShaping() {
		this.contextRunner.withPropertyValues(QUEUE)
			.withPropertyValues(LIMIT + "shaping.max-delay=3s")
			.run((context) -> {
				assertThat(limit(context))
					.isEqualTo(new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(3), 1)));
				assertThat(context.getBean(HeldRequests.class).max()).isEqualTo(10_000);
			});
	}

	@Test
	void aLeakyBucketLetsDelayAfterUnitsPassAtOnce() {
		this.contextRunner.withPropertyValues(QUEUE)
			.withPropertyValues(LIMIT + "shaping.max-delay=1500ms", LIMIT + "shaping.delay-after=4")
			.run((context) -> assertThat(limit(context)).isEqualTo(
					new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofMillis(1500), 4))));
	}

	@Test
	void aShapingTokenBucketStartsWithItsShaping() {
		this.contextRunner.withPropertyValues(RESERVATIONS)
			.withPropertyValues(LIMIT + "shaping.max-delay=2s")
			.run((context) -> assertThat(limit(context))
				.isEqualTo(new TokenBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(2)))));
	}

	@Test
	void aBucketWithoutShapingMeters() {
		this.contextRunner.withPropertyValues(QUEUE)
			.run((context) -> assertThat(limit(context).shaping()).isNull());
	}

	@Test
	void maxHeldRequestsIsThisNodesBound() {
		this.contextRunner.withPropertyValues(QUEUE)
			.withPropertyValues(LIMIT + "shaping.max-delay=3s", "ratelimit.shaping.max-held-requests=250")
			.run((context) -> assertThat(context.getBean(HeldRequests.class).max()).isEqualTo(250));
	}

	@ParameterizedTest
	@ValueSource(strings = { "fixed-window", "sliding-window-log", "sliding-window-counter" })
	void aWindowCannotShape(String algorithm) {
		this.contextRunner
			.withPropertyValues(LIMIT + "algorithm=" + algorithm, LIMIT + "limit=10", LIMIT + "window=1m",
					LIMIT + "shaping.max-delay=3s")
			.run((context) -> assertThat(problems(context)).containsExactly(LIMIT + "shaping: was {max-delay=3s}"
					+ ", must not be set for " + algorithm + ": a window admits its whole limit again at each "
					+ "boundary, so the requests held for it would all be released at once; shape with leaky-bucket "
					+ "or token-bucket"));
	}

	@Test
	void shapingWithoutMaxDelayIsRefused() {
		this.contextRunner.withPropertyValues(QUEUE)
			.withPropertyValues(LIMIT + "shaping.delay-after=2")
			.run((context) -> assertThat(problems(context)).containsExactly(LIMIT
					+ "shaping.max-delay: was not set, must be set to shape: the longest a request may be held "
					+ "(for example 2s)"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "0s", "-1s" })
	void aMaxDelayThatIsNotPositiveIsRefused(String maxDelay) {
		this.contextRunner.withPropertyValues(QUEUE)
			.withPropertyValues(LIMIT + "shaping.max-delay=" + maxDelay)
			.run((context) -> assertThat(problems(context)).containsExactly(LIMIT + "shaping.max-delay: was "
					+ maxDelay + ", must be a positive duration (for example 500ms, 1s, 1m, 1d)"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "0", "-1" })
	void aDelayAfterThatIsNotPositiveIsRefused(String delayAfter) {
		this.contextRunner.withPropertyValues(QUEUE)
			.withPropertyValues(LIMIT + "shaping.max-delay=3s", LIMIT + "shaping.delay-after=" + delayAfter)
			.run((context) -> assertThat(problems(context))
				.containsExactly(LIMIT + "shaping.delay-after: was " + delayAfter + ", must be a positive number"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "5", "6" })
	void aDelayAfterOfTheCapacityOrMoreIsRefused(String delayAfter) {
		this.contextRunner.withPropertyValues(QUEUE)
			.withPropertyValues(LIMIT + "shaping.max-delay=3s", LIMIT + "shaping.delay-after=" + delayAfter)
			.run((context) -> assertThat(problems(context)).containsExactly(LIMIT + "shaping.delay-after: was "
					+ delayAfter + ", must be less than capacity (5), or no request would ever be held"));
	}

	@Test
	void aTokenBucketTakesNoDelayAfter() {
		this.contextRunner.withPropertyValues(RESERVATIONS)
			.withPropertyValues(LIMIT + "shaping.max-delay=3s", LIMIT + "shaping.delay-after=1")
			.run((context) -> assertThat(problems(context)).containsExactly(LIMIT + "shaping.delay-after: was 1, "
					+ "must not be set for token-bucket, whose capacity is the burst that passes at once"));
	}

	@Test
	void aPolicyOnTheHybridStoreCannotShape() {
		this.contextRunner.withPropertyValues(QUEUE)
			.withPropertyValues(LIMIT + "shaping.max-delay=3s", "ratelimit.policies.payments.store=hybrid")
			.run((context) -> assertThat(problems(context)).contains(LIMIT + "shaping: was store hybrid, "
					+ "must not be set for a policy on store hybrid, whose nodes each admit from leases of their "
					+ "own and so would each release at their own pace; shape on store redis, which keeps one "
					+ "schedule for the fleet"));
	}

	@Test
	void aPolicyOnTheHybridStoreByDefaultCannotShape() {
		this.contextRunner.withPropertyValues(QUEUE)
			.withPropertyValues(LIMIT + "shaping.max-delay=3s", "ratelimit.store=hybrid")
			.run((context) -> assertThat(problems(context))
				.anyMatch((problem) -> problem.startsWith(LIMIT + "shaping: was store hybrid, must not be set")));
	}

	@ParameterizedTest
	@ValueSource(strings = { "0", "-1" })
	void maxHeldRequestsThatIsNotPositiveIsRefused(String max) {
		this.contextRunner.withPropertyValues(QUEUE)
			.withPropertyValues("ratelimit.shaping.max-held-requests=" + max)
			.run((context) -> assertThat(problems(context))
				.containsExactly("ratelimit.shaping.max-held-requests: was " + max + ", must be a positive number"));
	}

	@Test
	void aMisspeltShapingKeyIsNamedWithTheKeyMeant() {
		this.contextRunner.withPropertyValues(QUEUE)
			.withPropertyValues(LIMIT + "shaping.max-delay=3s", LIMIT + "shaping.max-dealy=5s")
			.run((context) -> assertThat(problems(context)).containsExactly(
					LIMIT + "shaping.max-dealy: was 5s, is not a known key; did you mean max-delay?"));
	}

	@Test
	void aMaxDelayMisspeltAloneIsNamedWithTheKeyMeant() {
		this.contextRunner.withPropertyValues(QUEUE)
			.withPropertyValues(LIMIT + "shaping.max-dealy=3s")
			.run((context) -> assertThat(problems(context)).containsExactly(
					LIMIT + "shaping.max-dealy: was 3s, is not a known key; did you mean max-delay?"));
	}

	@Test
	void aMisspeltMaxHeldRequestsIsNamedWithTheKeyMeant() {
		this.contextRunner.withPropertyValues(QUEUE)
			.withPropertyValues("ratelimit.shaping.max-held-request=5")
			.run((context) -> assertThat(problems(context)).containsExactly(
					"ratelimit.shaping.max-held-request: was 5, is not a known key; did you mean max-held-requests?"));
	}

	private static Limit limit(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		List<Limit> limits = context.getBean(RateLimitPolicies.class).policy("payments").defaultTier().limits();
		assertThat(limits).hasSize(1);
		return limits.get(0);
	}

}
