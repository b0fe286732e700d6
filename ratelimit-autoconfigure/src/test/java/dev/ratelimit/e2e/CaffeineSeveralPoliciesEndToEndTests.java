package dev.ratelimit.e2e;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link SeveralPoliciesGatewayScenarios} on the in-memory store, its windows of a
 * minute on the gateway's hand-moved clock, and the route of two
 * {@code RateLimit} filters, refused at start-up.
 */
class CaffeineSeveralPoliciesEndToEndTests extends SeveralPoliciesGatewayScenarios {

	@Override
	protected List<String> storeProperties() {
		return List.of("ratelimit.store=caffeine");
	}

	@Override
	protected Duration window() {
		return Duration.ofMinutes(1);
	}

	/**
	 * Two filters would judge a request one after the other, the second refusing
	 * without giving back what the first took and each writing its own headers (the
	 * issue measured only one policy in them): refused, pointing to the list form.
	 */
	@Test
	void aRouteOfTwoRateLimitFiltersStopsTheStartPointingToOneFilterNamingBoth() {
		assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> GatewayRunner
				.start("ratelimit.headers=draft-11", "ratelimit.policies.per-ip.key=ip",
						"ratelimit.policies.per-ip.tiers.anonymous[0].algorithm=fixed-window",
						"ratelimit.policies.per-ip.tiers.anonymous[0].limit=3",
						"ratelimit.policies.per-ip.tiers.anonymous[0].window=1m", "ratelimit.policies.global.key=route",
						"ratelimit.policies.global.tiers.anonymous[0].algorithm=fixed-window",
						"ratelimit.policies.global.tiers.anonymous[0].limit=100",
						"ratelimit.policies.global.tiers.anonymous[0].window=1m", GatewayRunner.FIRST_ROUTE + "id=issue",
						GatewayRunner.FIRST_ROUTE + "uri=" + this.upstream.uri(),
						GatewayRunner.FIRST_ROUTE + "predicates[0]=Path=/issue/**",
						GatewayRunner.FIRST_ROUTE + "filters[0]=RateLimit=per-ip",
						GatewayRunner.FIRST_ROUTE + "filters[1]=RateLimit=global")
				.close())
			.havingRootCause()
			.isInstanceOf(InvalidRateLimitConfigurationException.class)
			.withMessageContaining("spring.cloud.gateway.server.webflux.routes[0].filters[1]: was RateLimit=global, "
					+ "must not be a second RateLimit filter of route 'issue' "
					+ "(spring.cloud.gateway.server.webflux.routes[0].filters[0] is RateLimit=per-ip)")
			.withMessageContaining("name every policy in one filter, RateLimit=per-ip,global");
	}

}
