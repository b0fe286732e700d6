package dev.ratelimit.e2e;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.gateway.RateLimitFilters;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.support.ManualClock;
import dev.ratelimit.web.Outcome;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Routes built in Java with {@code RouteLocatorBuilder} apply a policy with
 * {@link RateLimitFilters}, through a real gateway: limited as a YAML route is, each
 * route known by its id, and listed with the policy's routes by the actuator.
 */
class JavaRouteEndToEndTests {

	private static final Upstream upstream = Upstream.start();

	private static final String[] ORDERS_PER_ROUTE = { "test.upstream=" + upstream.uri(),
			"management.endpoints.web.exposure.include=ratelimits", "ratelimit.policies.orders.key=route",
			"ratelimit.policies.orders.tiers.anonymous[0].algorithm=fixed-window",
			"ratelimit.policies.orders.tiers.anonymous[0].limit=2",
			"ratelimit.policies.orders.tiers.anonymous[0].window=1m" };

	@AfterAll
	static void stopUpstream() {
		upstream.close();
	}

	@Test
	void aJavaRouteIsLimitedByItsPolicyUnderItsOwnRouteId() {
		try (GatewayRunner gateway = GatewayRunner.start(JavaRoutes.class, ORDERS_PER_ROUTE)) {
			gateway.bean(ManualClock.class).advanceToMultipleOf(Duration.ofMinutes(1));
			WebTestClient client = gateway.client();
			client.get()
				.uri("/java/orders/1")
				.exchange()
				.expectStatus()
				.isOk()
				.expectHeader()
				.valueEquals("RateLimit-Remaining", "1")
				.expectBody(Void.class);
			client.get().uri("/java/orders/2").exchange().expectStatus().isOk().expectBody(Void.class);
			client.get()
				.uri("/java/orders/3")
				.exchange()
				.expectStatus()
				.isEqualTo(429)
				.expectHeader()
				.valueEquals(HttpHeaders.RETRY_AFTER, "60")
				.expectBody()
				.jsonPath("$.detail")
				.isEqualTo("You have exceeded the rate limit of 2 requests per minute.");
			// The key is the route: the other Java route with the same filter has its own quota.
			client.get().uri("/java/invoices/1").exchange().expectStatus().isOk().expectBody(Void.class);
			assertThat(upstream.hits("/java/orders/3")).isZero();

			List<RecordingListener.Decision> decisions = gateway.bean(RecordingListener.class).decisions();
			assertThat(decisions).extracting(RecordingListener.Decision::routeId)
				.containsExactly("java-orders", "java-orders", "java-orders", "java-invoices");
			assertThat(decisions.get(2).outcome()).isEqualTo(Outcome.REJECTED);

			assertThat(gateway.policyRoutes("orders")).isEqualTo(List.of("java-orders", "java-invoices"));
		}
	}

	@Test
	void aJavaRouteNamingAnUnknownPolicyFailsTheStart() {
		assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> GatewayRunner.start(UnknownPolicyRoute.class, ORDERS_PER_ROUTE).close())
			.havingRootCause()
			.isInstanceOf(InvalidRateLimitConfigurationException.class)
			.withMessageContaining("Java route filter RateLimitFilters.policy(...)")
			.withMessageContaining("must name a policy defined under ratelimit.policies (defined: [orders])");
	}

	@Configuration(proxyBeanMethods = false)
	static class JavaRoutes {

		@Bean
		RouteLocator javaRoutes(RouteLocatorBuilder routes, RateLimitFilters rateLimit,
				@Value("${test.upstream}") String upstream) {
			return routes.routes()
				.route("java-orders",
						(route) -> route.path("/java/orders/**")
							.filters((filters) -> filters.filter(rateLimit.policy("orders")))
							.uri(upstream))
				.route("java-invoices",
						(route) -> route.path("/java/invoices/**")
							.filters((filters) -> filters.filter(rateLimit.policy("orders")))
							.uri(upstream))
				.build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownPolicyRoute {

		@Bean
		RouteLocator unknownPolicyRoute(RouteLocatorBuilder routes, RateLimitFilters rateLimit) {
			return routes.routes()
				.route("typo",
						(route) -> route.path("/typo/**")
							.filters((filters) -> filters.filter(rateLimit.policy("oders")))
							.uri("http://localhost"))
				.build();
		}

	}

}
