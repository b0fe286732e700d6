package dev.ratelimit.autoconfigure;

import java.util.Map;

import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.policy.RateLimitPolicies;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
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
			assertThat(context).hasSingleBean(PolicyReloader.class);
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
				assertThat(context).hasSingleBean(PolicyReloader.class);
				assertThat(context).doesNotHaveBean(GatewayRoutesReload.class);
			});
	}

	@Test
	void withoutSpringCloudContextThereIsNoReload() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(EnvironmentChangeEvent.class))
			.run((context) -> assertThat(context).doesNotHaveBean(PolicyReloader.class));
	}

	@Test
	void policiesTheApplicationDefinesAreNeverReplacedByTheProperties() {
		RateLimitPolicies own = new RateLimitPolicies(Map.of(), Map.of());
		this.contextRunner.withBean(RateLimitPolicies.class, () -> own).run((context) -> {
			assertThat(context).doesNotHaveBean(PolicyReloader.class);
			assertThat(context.getBean(LivePolicies.class).get()).isSameAs(own);
		});
	}

}
