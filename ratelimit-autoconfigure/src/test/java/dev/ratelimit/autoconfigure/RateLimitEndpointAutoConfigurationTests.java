package dev.ratelimit.autoconfigure;

import dev.ratelimit.actuate.KeyMasker;
import dev.ratelimit.actuate.RateLimitTotals;
import dev.ratelimit.actuate.RateLimitsEndpoint;
import dev.ratelimit.actuate.RateLimitsEndpoint.BucketDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.BucketsDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.HeldRequestsDescriptor;
import dev.ratelimit.actuate.ShowKeys;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.testsupport.FixedSnapshotsInspector;
import dev.ratelimit.testsupport.TestPolicies;
import dev.ratelimit.web.HeldRequests;
import dev.ratelimit.web.RateLimitedRoutes;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.gateway.route.RouteDefinitionLocator;

import static dev.ratelimit.testsupport.FixedSnapshotsInspector.fixedWindow;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitEndpointAutoConfiguration}.
 */
class RateLimitEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitEndpointAutoConfiguration.class))
		.withBean(RateLimitPolicies.class, TestPolicies::policies)
		.withBean(FixedSnapshotsInspector.class, () -> new FixedSnapshotsInspector("caffeine").add("orders", "free",
				"demo-free-key", 3, fixedWindow(10, 7)));

	@Test
	void endpointIsPresentWhenExposedOverTheWeb() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=ratelimits")
			.run((context) -> assertThat(context).hasSingleBean(RateLimitsEndpoint.class)
				.hasSingleBean(RateLimitTotals.class));
	}

	@Test
	void endpointIsAbsentWhenNotExposed() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(RateLimitsEndpoint.class)
			.doesNotHaveBean(RateLimitTotals.class));
	}

	@Test
	void endpointIsAbsentWhenAccessIsNone() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=ratelimits",
					"management.endpoint.ratelimits.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(RateLimitsEndpoint.class));
	}

	@Test
	void endpointIsAbsentWithoutPolicies() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=ratelimits")
			.run((context) -> assertThat(context).doesNotHaveBean(RateLimitsEndpoint.class));
	}

	@Test
	void backsOffWhenTheUserDefinesTheEndpointAndTotals() {
		RateLimitTotals totals = new RateLimitTotals();
		RateLimitsEndpoint endpoint = new RateLimitsEndpoint(TestPolicies.policies(),
				new BucketStores(java.util.List.of(), java.util.List.of()), totals,
				new KeyMasker(ShowKeys.ALWAYS, 0), null);
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=ratelimits")
			.withBean("myTotals", RateLimitTotals.class, () -> totals)
			.withBean("myEndpoint", RateLimitsEndpoint.class, () -> endpoint)
			.run((context) -> {
				assertThat(context).getBean(RateLimitsEndpoint.class).isSameAs(endpoint);
				assertThat(context).getBean(RateLimitTotals.class).isSameAs(totals);
			});
	}

	@Test
	void showsTheRequestsThisNodeHoldsWhereTheRequestPathHoldsThem() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=ratelimits")
			.run((context) -> assertThat(context.getBean(RateLimitsEndpoint.class).rateLimits().block().heldRequests())
				.isNull());
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=ratelimits")
			.withBean(HeldRequests.class, () -> new HeldRequests(250))
			.run((context) -> assertThat(context.getBean(RateLimitsEndpoint.class).rateLimits().block().heldRequests())
				.isEqualTo(new HeldRequestsDescriptor(0, 250)));
	}

	@Test
	void masksKeysByDefault() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=ratelimits")
			.run((context) -> assertThat(listedKeys(context.getBean(RateLimitsEndpoint.class)))
				.containsExactly("demo…9f8cfdb1"));
	}

	@Test
	void showsKeysWhenConfiguredToAlways() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=ratelimits",
					"ratelimit.actuator.show-keys=always")
			.run((context) -> assertThat(listedKeys(context.getBean(RateLimitsEndpoint.class)))
				.containsExactly("demo-free-key"));
	}

	@Test
	void masksWithTheConfiguredPrefixLength() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=ratelimits",
					"ratelimit.actuator.mask-prefix-length=2")
			.run((context) -> assertThat(listedKeys(context.getBean(RateLimitsEndpoint.class)))
				.containsExactly("de…9f8cfdb1"));
	}

	@Test
	void negativeMaskPrefixLengthFailsNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=ratelimits",
					"ratelimit.actuator.mask-prefix-length=-1")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.actuator.mask-prefix-length: was -1, must not be negative"));
	}

	@Test
	void readsRoutesFromTheGatewayWhenThereIsOne() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=ratelimits")
			.withBean(RouteDefinitionLocator.class, () -> Flux::empty)
			.run((context) -> assertThat(context).hasSingleBean(RateLimitedRoutes.class));
	}

	@Test
	void needsNoGatewayRoutes() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=ratelimits")
			.run((context) -> assertThat(context).doesNotHaveBean(RateLimitedRoutes.class)
				.hasSingleBean(RateLimitsEndpoint.class));
	}

	private static java.util.List<String> listedKeys(RateLimitsEndpoint endpoint) {
		return ((BucketsDescriptor) endpoint.buckets("orders", null).block().getBody()).buckets().stream().map(BucketDescriptor::key).toList();
	}

}
