package dev.ratelimit.autoconfigure;

import dev.ratelimit.actuate.RateLimitTotals;
import dev.ratelimit.actuate.RateLimitsEndpoint;
import dev.ratelimit.actuate.RateLimitsEndpoint.BucketsDescriptor;
import dev.ratelimit.metrics.RateLimitBucketMetrics;
import dev.ratelimit.metrics.RateLimitRequestMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the endpoint, metrics and health auto-configurations together with
 * {@link RateLimitAutoConfiguration}, in the order Boot sorts them.
 */
class RateLimitOperationsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitMetricsAutoConfiguration.class,
				RateLimitHealthContributorAutoConfiguration.class, RateLimitEndpointAutoConfiguration.class,
				RateLimitAutoConfiguration.class, RateLimitDisabledAutoConfiguration.class,
				MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
				SimpleMetricsExportAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=ratelimits",
				"ratelimit.policies.orders.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.orders.tiers.anonymous[0].limit=60",
				"ratelimit.policies.orders.tiers.anonymous[0].window=1m");

	@Test
	void operatorsSeeTheAutoConfiguredPoliciesAndStore() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(RateLimitsEndpoint.class)
				.hasSingleBean(RateLimitTotals.class)
				.hasSingleBean(RateLimitRequestMetrics.class)
				.hasSingleBean(RateLimitBucketMetrics.class)
				.hasBean("ratelimitHealthContributor");
			RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
			assertThat(endpoint.rateLimits().block().policies()).containsOnlyKeys("orders");
			assertThat(((BucketsDescriptor) endpoint.buckets("orders", null).block().getBody()).store()).isEqualTo("caffeine");
			assertThat(context.getBean(MeterRegistry.class)
				.get("ratelimit.buckets")
				.tag("policy", "orders")
				.gauge()
				.value()).isZero();
		});
	}

	@Test
	void nothingToOperateWhenRateLimitingIsDisabled() {
		this.contextRunner.withPropertyValues("ratelimit.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RateLimitsEndpoint.class)
				.doesNotHaveBean(RateLimitTotals.class)
				.doesNotHaveBean(RateLimitBucketMetrics.class)
				.doesNotHaveBean("ratelimitHealthContributor"));
	}

}
