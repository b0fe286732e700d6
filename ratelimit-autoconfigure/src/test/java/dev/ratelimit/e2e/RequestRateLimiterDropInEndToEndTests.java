package dev.ratelimit.e2e;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.support.ManualClock;
import dev.ratelimit.web.Outcome;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring Cloud Gateway {@code RequestRateLimiter} route that names a policy's
 * {@code RateLimiter} bean instead of Redis's, through a real gateway; the actuator
 * lists the route with the policy's.
 */
class RequestRateLimiterDropInEndToEndTests {

	private static final String SECOND_ROUTE = "spring.cloud.gateway.server.webflux.routes[1].";

	private static final Upstream upstream = Upstream.start();

	@AfterAll
	static void stopUpstream() {
		upstream.close();
	}

	@Test
	void theKeyResolversIdIsTheBucketAndAKnownApiKeyPicksItsTier() {
		try (GatewayRunner gateway = GatewayRunner.start("management.endpoints.web.exposure.include=ratelimits",
				"ratelimit.tiers.api-keys.pro-key=pro",
				"ratelimit.policies.orders.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.orders.tiers.anonymous[0].limit=2",
				"ratelimit.policies.orders.tiers.anonymous[0].window=1m",
				"ratelimit.policies.orders.tiers.pro[0].algorithm=fixed-window",
				"ratelimit.policies.orders.tiers.pro[0].limit=4",
				"ratelimit.policies.orders.tiers.pro[0].window=1m", GatewayRunner.FIRST_ROUTE + "id=orders-route",
				GatewayRunner.FIRST_ROUTE + "uri=" + upstream.uri(), GatewayRunner.FIRST_ROUTE + "predicates[0]=Path=/orders/**",
				GatewayRunner.FIRST_ROUTE + "filters[0].name=RequestRateLimiter",
				GatewayRunner.FIRST_ROUTE + "filters[0].args.rate-limiter=#{@ordersRateLimiter}",
				GatewayRunner.FIRST_ROUTE + "filters[0].args.key-resolver=#{@tenantKeyResolver}",
				SECOND_ROUTE + "id=orders-default-key", SECOND_ROUTE + "uri=" + upstream.uri(),
				SECOND_ROUTE + "predicates[0]=Path=/default/**", SECOND_ROUTE + "filters[0].name=RequestRateLimiter",
				SECOND_ROUTE + "filters[0].args.rate-limiter=#{@ordersRateLimiter}")) {
			gateway.bean(ManualClock.class).advanceToMultipleOf(Duration.ofMinutes(1));
			WebTestClient client = gateway.client();
			EntityExchangeResult<byte[]> first = get(client, "/orders/a", "acme");
			assertThat(first.getStatus()).isEqualTo(HttpStatus.OK);
			assertThat(first.getResponseHeaders().getFirst("RateLimit-Limit")).isEqualTo("2");
			assertThat(first.getResponseHeaders().getFirst("RateLimit-Remaining")).isEqualTo("1");
			assertThat(first.getResponseHeaders().getFirst("RateLimit-Reset")).isEqualTo("60");
			assertThat(first.getResponseHeaders().getFirst("RateLimit-Policy")).isEqualTo("2;w=60");
			assertThat(first.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isNull();
			assertThat(get(client, "/orders/a", "acme").getStatus()).isEqualTo(HttpStatus.OK);
			EntityExchangeResult<byte[]> rejected = get(client, "/orders/a", "acme");
			assertThat(rejected.getStatus()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
			assertThat(rejected.getResponseHeaders().getFirst("RateLimit-Remaining")).isEqualTo("0");
			assertThat(rejected.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("60");
			assertThat(upstream.hits("/orders/a")).isEqualTo(2);

			assertThat(get(client, "/orders/b", "globex").getStatus()).isEqualTo(HttpStatus.OK);
			for (int i = 0; i < 4; i++) {
				EntityExchangeResult<byte[]> pro = get(client, "/orders/pro", "pro-key");
				assertThat(pro.getStatus()).isEqualTo(HttpStatus.OK);
				assertThat(pro.getResponseHeaders().getFirst("RateLimit-Limit")).isEqualTo("4");
			}
			assertThat(get(client, "/orders/pro", "pro-key").getStatus()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);

			List<RecordingListener.Decision> decisions = gateway.bean(RecordingListener.class).decisions();
			assertThat(decisions).hasSize(9);
			assertThat(decisions.get(2)).isEqualTo(new RecordingListener.Decision("orders", "anonymous",
					"orders-route", "caffeine", Outcome.REJECTED));
			assertThat(decisions.get(4).tier()).isEqualTo("pro");

			assertThat(gateway.policyRoutes("orders")).isEqualTo(List.of("orders-route", "orders-default-key"));
			// The route's KeyResolver keys it, not the policy's key (api-key): the one it
			// names, else the filter's default, which Spring Cloud Gateway made the
			// application's one KeyResolver bean.
			client.get()
				.uri("/actuator/ratelimits")
				.exchange()
				.expectStatus()
				.isOk()
				.expectBody()
				.jsonPath("$.routes[0].id")
				.isEqualTo("orders-route")
				.jsonPath("$.routes[0].filter")
				.isEqualTo("RequestRateLimiter")
				.jsonPath("$.routes[0].key")
				.isEqualTo("#{@tenantKeyResolver}")
				.jsonPath("$.routes[1].id")
				.isEqualTo("orders-default-key")
				.jsonPath("$.routes[1].key")
				.isEqualTo("#{@tenantKeyResolver}")
				.jsonPath("$.policies.orders.key")
				.isEqualTo("#{@tenantKeyResolver}");
		}
	}

	private static EntityExchangeResult<byte[]> get(WebTestClient client, String path, String tenant) {
		return client.get().uri(path).header("X-Tenant", tenant).exchange().expectBody().returnResult();
	}

}
