package dev.ratelimit.autoconfigure;

import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.web.DefaultRateLimitDecisionObservationConvention;
import dev.ratelimit.web.RateLimitDecisionObservationContext;
import dev.ratelimit.web.RateLimitDecisionObservationConvention;
import dev.ratelimit.web.RequestJudge;
import dev.ratelimit.web.RequestJudges;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The request path's judges observe each policy's decision in the application's
 * {@link ObservationRegistry}, named by its {@link RateLimitDecisionObservationConvention}
 * when it declares one, and observe nothing without a registry.
 */
class RateLimitObservationConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.policies.orders.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.orders.tiers.anonymous[0].limit=1",
				"ratelimit.policies.orders.tiers.anonymous[0].window=1m");

	@Test
	void judgesObserveDecisionsInTheApplicationsRegistry() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		this.contextRunner.withBean(ObservationRegistry.class, () -> registry).run((context) -> {
			assertThat(judge(context.getBean(RequestJudges.class)).judge("tenant", (allowed, headers) -> allowed)
				.block()).isTrue();
			TestObservationRegistryAssert.assertThat(registry)
				.hasObservationWithNameEqualTo(DefaultRateLimitDecisionObservationConvention.NAME)
				.that()
				.hasLowCardinalityKeyValue("policy", "orders")
				.hasLowCardinalityKeyValue("outcome", "allowed");
		});
	}

	@Test
	void theApplicationsConventionNamesTheObservation() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		this.contextRunner.withBean(ObservationRegistry.class, () -> registry)
			.withBean(RateLimitDecisionObservationConvention.class, () -> new DefaultRateLimitDecisionObservationConvention() {

				@Override
				public String getName() {
					return "gateway.quota.checks";
				}

				@Override
				public String getContextualName(RateLimitDecisionObservationContext context) {
					return "quota " + context.getPolicy() + " on " + context.getRouteId();
				}

			})
			.run((context) -> {
				judge(context.getBean(RequestJudges.class)).judge("tenant", (allowed, headers) -> allowed).block();
				TestObservationRegistryAssert.assertThat(registry)
					.hasNumberOfObservationsWithNameEqualTo(DefaultRateLimitDecisionObservationConvention.NAME, 0)
					.hasObservationWithNameEqualTo("gateway.quota.checks")
					.that()
					.hasContextualNameEqualTo("quota orders on orders-route")
					.hasLowCardinalityKeyValue("store", "caffeine");
			});
	}

	private static RequestJudge judge(RequestJudges judges) {
		RateLimitPolicies policies = judges.policies();
		return judges.forKeys(policies, policies.policy("orders"), "orders-route");
	}

}
