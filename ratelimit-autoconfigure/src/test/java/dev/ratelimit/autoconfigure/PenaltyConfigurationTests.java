package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.algorithm.Penalty;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static dev.ratelimit.testsupport.StartUpProblems.problems;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A policy's {@code penalty} as configured: {@code block-for} one duration or a list of
 * positive ones, {@code forgive-after} positive, required with several steps and
 * refused with one, no other key under it, and not on the hybrid store; anything else
 * stops start-up naming the property.
 */
class PenaltyConfigurationTests {

	private static final String POLICY = "ratelimit.policies.login.";

	private static final String PENALTY = POLICY + "penalty.";

	private static final String LIMIT = POLICY + "tiers.anonymous[0].";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitDisabledAutoConfiguration.class))
		.withPropertyValues(LIMIT + "algorithm=fixed-window", LIMIT + "limit=5", LIMIT + "window=1m");

	@Test
	void aPolicyWithoutAPenaltyBlocksNoClient() {
		this.contextRunner.run((context) -> assertThat(policy(context).penalty()).isNull());
	}

	@Test
	void oneDurationIsOneStep() {
		this.contextRunner.withPropertyValues(PENALTY + "block-for=10m")
			.run((context) -> assertThat(policy(context).penalty())
				.isEqualTo(new Penalty(Duration.ofMinutes(10))));
	}

	@Test
	void aListOfDurationsEscalatesAndIsForgivenAfterForgiveAfter() {
		Penalty escalating = new Penalty(List.of(Duration.ofMinutes(1), Duration.ofMinutes(10), Duration.ofHours(1)),
				Duration.ofHours(24));
		this.contextRunner
			.withPropertyValues(PENALTY + "block-for[0]=1m", PENALTY + "block-for[1]=10m", PENALTY + "block-for[2]=1h",
					PENALTY + "forgive-after=24h")
			.run((context) -> assertThat(policy(context).penalty()).isEqualTo(escalating));
		this.contextRunner.withPropertyValues(PENALTY + "block-for=1m, 10m, 1h", PENALTY + "forgive-after=1d")
			.run((context) -> assertThat(policy(context).penalty()).isEqualTo(escalating));
	}

	@Test
	void anEmptyBlockForIsRefused() {
		this.contextRunner.withPropertyValues(PENALTY + "block-for=")
			.run((context) -> assertThat(problems(context)).containsExactly(PENALTY + "block-for: was [], must list "
					+ "at least one duration: how long a breach blocks the client (10m), or each step of an "
					+ "escalation ([1m, 10m, 1h])"));
	}

	@Test
	void aPenaltyWithoutBlockForIsRefused() {
		this.contextRunner.withPropertyValues(PENALTY + "forgive-after=1d")
			.run((context) -> assertThat(problems(context)).contains(PENALTY + "block-for: was [], must list "
					+ "at least one duration: how long a breach blocks the client (10m), or each step of an "
					+ "escalation ([1m, 10m, 1h])"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "0s", "-1m" })
	void aStepThatIsNotPositiveIsRefused(String step) {
		this.contextRunner.withPropertyValues(PENALTY + "block-for=" + step)
			.run((context) -> assertThat(problems(context)).containsExactly(PENALTY + "block-for: was " + step
					+ ", must be a positive duration (for example 500ms, 1s, 1m, 1d)"));
		this.contextRunner
			.withPropertyValues(PENALTY + "block-for[0]=1m", PENALTY + "block-for[1]=" + step,
					PENALTY + "forgive-after=1d")
			.run((context) -> assertThat(problems(context)).containsExactly(PENALTY + "block-for[1]: was " + step
					+ ", must be a positive duration (for example 500ms, 1s, 1m, 1d)"));
	}

	@Test
	void severalStepsNeedForgiveAfter() {
		this.contextRunner.withPropertyValues(PENALTY + "block-for=1m, 10m")
			.run((context) -> assertThat(problems(context)).containsExactly(PENALTY + "forgive-after: was not set, "
					+ "must be set when block-for has more than one step: how long after its block ends a client "
					+ "without a breach is forgiven and starts again at the first step (for example 1d)"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "0s", "-1h" })
	void aForgiveAfterThatIsNotPositiveIsRefused(String forgiveAfter) {
		this.contextRunner.withPropertyValues(PENALTY + "block-for=1m, 10m", PENALTY + "forgive-after=" + forgiveAfter)
			.run((context) -> assertThat(problems(context)).containsExactly(PENALTY + "forgive-after: was "
					+ forgiveAfter + ", must be a positive duration (for example 500ms, 1s, 1m, 1d)"));
	}

	@Test
	void oneStepHasNoForgiveAfter() {
		this.contextRunner.withPropertyValues(PENALTY + "block-for=10m", PENALTY + "forgive-after=1d")
			.run((context) -> assertThat(problems(context)).containsExactly(PENALTY + "forgive-after: was 1d, must "
					+ "not be set with one block-for step, which every breach serves again: there is no escalation "
					+ "to forgive"));
	}

	@Test
	void anUnknownKeyUnderPenaltyIsNamedWithTheNearestKnownOne() {
		this.contextRunner.withPropertyValues(PENALTY + "block-for=1m, 10m", PENALTY + "forgive-afer=1d")
			.run((context) -> assertThat(problems(context))
				.contains(PENALTY + "forgive-afer: was 1d, is not a known key; did you mean forgive-after?"));
		this.contextRunner.withPropertyValues(PENALTY + "block-for=10m", PENALTY + "escalate=true")
			.run((context) -> assertThat(problems(context)).containsExactly(PENALTY + "escalate: was true, is not "
					+ "a known key; the keys of " + POLICY + "penalty are block-for, forgive-after"));
	}

	@Test
	void theHybridStoreCannotBlock() {
		this.contextRunner.withPropertyValues(PENALTY + "block-for=10m", POLICY + "store=hybrid")
			.run((context) -> assertThat(problems(context)).contains(POLICY + "penalty: was store hybrid, must not "
					+ "be set for a policy on store hybrid, whose nodes each decide from leases in their own memory, "
					+ "so a block would hold on one node only; use store redis, which blocks a client on every node "
					+ "at once, or caffeine"));
	}

	@Test
	void aShadowPolicyKeepsItsPenaltyAsConfigured() {
		this.contextRunner.withPropertyValues(PENALTY + "block-for=10m", POLICY + "shadow=true")
			.run((context) -> {
				RateLimitPolicy policy = policy(context);
				assertThat(policy.shadow()).isTrue();
				assertThat(policy.penalty()).isEqualTo(new Penalty(Duration.ofMinutes(10)));
			});
	}

	private static RateLimitPolicy policy(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		RateLimitPolicy policy = context.getBean(RateLimitPolicies.class).policy("login");
		assertThat(policy).isNotNull();
		return policy;
	}

}
