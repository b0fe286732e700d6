package dev.ratelimit.autoconfigure;

import java.util.Map;
import java.util.Set;

import dev.ratelimit.policy.GatewayRoutesReload;
import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.policy.PolicyReloads;
import dev.ratelimit.policy.PolicyReloads.Outcome;
import dev.ratelimit.policy.PolicyReloads.Reload;
import dev.ratelimit.policy.RateLimitPolicies;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which applications reload their policies on Spring Cloud's refresh.
 */
class PolicyReloadConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.policies.orders.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.orders.tiers.anonymous[0].limit=60",
				"ratelimit.policies.orders.tiers.anonymous[0].window=1m");

	@Test
	void policiesBuiltFromThePropertiesAreReloadedAndStartAsValidated() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(EnvironmentChangeReload.class);
			assertThat(context.getBean(LivePolicies.class).get()).isSameAs(context.getBean(RateLimitPolicies.class));
		});
	}

	@Test
	void aReloadWhoseValueCannotBeBoundIsRecordedAsRejectedNamingPropertyAndValue() {
		this.contextRunner.run((context) -> {
			String window = "ratelimit.policies.orders.tiers.anonymous[0].window";
			TestPropertyValues.of(window + "=soon").applyTo(context.getEnvironment());
			context.publishEvent(new EnvironmentChangeEvent(context, Set.of(window)));
			Reload reload = context.getBean(PolicyReloads.class).last();
			assertThat(reload.outcome()).isEqualTo(Outcome.REJECTED);
			assertThat(reload.changedKeys()).containsExactly(window);
			assertThat(reload.problems()).singleElement().satisfies((problem) -> {
				assertThat(problem.property()).isEqualTo(window);
				assertThat(problem.value()).isEqualTo("soon");
			});
			assertThat(context.getBean(PolicyReloads.class).count(Outcome.REJECTED)).isOne();
			assertThat(context.getBean(LivePolicies.class).get()).isSameAs(context.getBean(RateLimitPolicies.class));
		});
	}

	@Test
	void withTheGatewayItsRoutesAreCheckedAndRebuiltOnAReload() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(GatewayRoutesReload.class));
	}

	@Test
	void aPlainWebFluxApplicationWithSpringCloudContextReloadsWithoutTheGateway() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.cloud.gateway"))
			.run((context) -> {
				assertThat(context).hasSingleBean(EnvironmentChangeReload.class);
				assertThat(context).doesNotHaveBean(GatewayRoutesReload.class);
			});
	}

	@Test
	void withoutSpringCloudContextThereIsNoReload() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(EnvironmentChangeEvent.class))
			.run((context) -> assertThat(context).doesNotHaveBean(EnvironmentChangeReload.class));
	}

	@Test
	void policiesTheApplicationDefinesAreNeverReplacedByTheProperties() {
		RateLimitPolicies own = new RateLimitPolicies(Map.of(), Map.of());
		this.contextRunner.withBean(RateLimitPolicies.class, () -> own).run((context) -> {
			assertThat(context).doesNotHaveBean(EnvironmentChangeReload.class);
			assertThat(context.getBean(LivePolicies.class).get()).isSameAs(own);
		});
	}

}
