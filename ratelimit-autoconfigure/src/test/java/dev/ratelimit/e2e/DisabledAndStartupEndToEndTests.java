package dev.ratelimit.e2e;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Switching rate limiting off, and configurations that must stop the application with
 * a readable report.
 */
@ExtendWith(OutputCaptureExtension.class)
class DisabledAndStartupEndToEndTests {

	private static final Upstream upstream = Upstream.start();

	@AfterAll
	static void stopUpstream() {
		upstream.close();
	}

	@Test
	void disabledLetsEveryRequestThroughRoutesThatNameAPolicy() {
		try (GatewayRunner gateway = GatewayRunner.start("ratelimit.enabled=false",
				"spring.cloud.gateway.server.webflux.routes[0].id=p",
				"spring.cloud.gateway.server.webflux.routes[0].uri=" + upstream.uri(),
				"spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/disabled/**",
				"spring.cloud.gateway.server.webflux.routes[0].filters[0]=RateLimit=not-even-defined")) {
			WebTestClient client = gateway.client();
			for (int i = 0; i < 5; i++) {
				client.get()
					.uri("/disabled/x")
					.exchange()
					.expectStatus()
					.isOk()
					.expectHeader()
					.doesNotExist("RateLimit-Limit")
					.expectBody(Void.class);
			}
			assertThat(upstream.hits("/disabled/x")).isEqualTo(5);
		}
	}

	@Test
	void aRouteNamingAnUnknownPolicyStopsTheApplicationWithAReport(CapturedOutput output) {
		assertThatException().isThrownBy(() -> GatewayRunner
			.application("ratelimit.policies.orders.tiers.anonymous[0].algorithm=fixed-window",
					"ratelimit.policies.orders.tiers.anonymous[0].limit=1",
					"ratelimit.policies.orders.tiers.anonymous[0].window=1s",
					"spring.cloud.gateway.server.webflux.routes[0].id=p",
					"spring.cloud.gateway.server.webflux.routes[0].uri=" + upstream.uri(),
					"spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/p/**",
					"spring.cloud.gateway.server.webflux.routes[0].filters[0]=RateLimit=ordres")
			.run());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("The rate limit configuration is invalid:")
			.contains("spring.cloud.gateway.server.webflux.routes[0].filters[0]: was RateLimit=ordres, must name a "
					+ "policy defined under ratelimit.policies (defined: [orders])")
			.contains("Correct the properties listed above");
	}

	@Test
	void aRequestRateLimiterRouteNamingNoBeanIsInTheReportWithATypoOnAnotherRoute(CapturedOutput output) {
		String second = "spring.cloud.gateway.server.webflux.routes[1].";
		assertThatException().isThrownBy(() -> GatewayRunner
			.application("ratelimit.policies.orders.tiers.anonymous[0].algorithm=fixed-window",
					"ratelimit.policies.orders.tiers.anonymous[0].limit=1",
					"ratelimit.policies.orders.tiers.anonymous[0].window=1s",
					GatewayRunner.FIRST_ROUTE + "id=legacy", GatewayRunner.FIRST_ROUTE + "uri=" + upstream.uri(),
					GatewayRunner.FIRST_ROUTE + "predicates[0]=Path=/legacy/**",
					GatewayRunner.FIRST_ROUTE + "filters[0].name=RequestRateLimiter",
					GatewayRunner.FIRST_ROUTE + "filters[0].args.rate-limiter=#{@legacyRateLimitr}",
					second + "id=p", second + "uri=" + upstream.uri(), second + "predicates[0]=Path=/p/**",
					second + "filters[0]=RateLimit=ordres")
			.run());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("The rate limit configuration is invalid:")
			.contains("spring.cloud.gateway.server.webflux.routes[0].filters[0]: was RequestRateLimiter "
					+ "rate-limiter=#{@legacyRateLimitr}, must name a RateLimiter bean: no bean is named "
					+ "'legacyRateLimitr' (the policies' beans: [ordersRateLimiter])")
			.contains("spring.cloud.gateway.server.webflux.routes[1].filters[0]: was RateLimit=ordres, must name a "
					+ "policy defined under ratelimit.policies (defined: [orders])")
			.doesNotContain("required a bean named");
	}

	@Test
	void aMisspeltKeyStopsTheApplicationWithAReport(CapturedOutput output) {
		assertThatException().isThrownBy(() -> GatewayRunner
			.application("ratelimit.policies.orders.tiers.anonymous[0].algorithm=token-bucket",
					"ratelimit.policies.orders.tiers.anonymous[0].capacity=3",
					"ratelimit.policies.orders.tiers.anonymous[0].refill-rate=3",
					"ratelimit.policies.orders.tiers.anonymous[0].refil-period=1m", "ratelimit.headers=draft6")
			.run());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("ratelimit.policies.orders.tiers.anonymous[0].refil-period: was 1m, is not a known key; did you "
					+ "mean refill-period?")
			.contains("ratelimit.headers: was draft6, must be draft-06, draft-11, x-ratelimit or none")
			.contains("set ratelimit.ignore-unknown-keys=true");
	}

	@Test
	void whatTheHeadersOrTheProblemCannotCarryStopsTheApplicationWithAReport(CapturedOutput output) {
		assertThatException().isThrownBy(() -> GatewayRunner
			.application("ratelimit.problem.type=/problems/too-many",
					"ratelimit.policies.orders.tiers.anonymous[0].algorithm=fixed-window",
					"ratelimit.policies.orders.tiers.anonymous[0].limit=10",
					"ratelimit.policies.orders.tiers.anonymous[0].window=1s",
					"ratelimit.policies.orders.tiers.anonymous[0].name=z\u00fcrich",
					"ratelimit.policies.orders.tiers.anonymous[1].algorithm=fixed-window",
					"ratelimit.policies.orders.tiers.anonymous[1].limit=10",
					"ratelimit.policies.orders.tiers.anonymous[1].window=1m")
			.run());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("ratelimit.problem.type: was '/problems/too-many', must be an absolute URI")
			.contains("ratelimit.policies.orders.tiers.anonymous[0].name: was 'z\u00fcrich', must be non-blank "
					+ "printable ASCII")
			.contains("ratelimit.policies.orders.tiers.anonymous[1].limit: was 10, must differ from the quota of "
					+ "ratelimit.policies.orders.tiers.anonymous[0] with ratelimit.headers=draft-06");
	}

	@Test
	void anUnknownAlgorithmStopsTheApplicationWithAReport(CapturedOutput output) {
		assertThatException().isThrownBy(() -> GatewayRunner
			.application("ratelimit.policies.orders.tiers.anonymous[0].algorithm=token_bucket",
					"ratelimit.policies.orders.tiers.anonymous[0].capacity=10",
					"ratelimit.policies.orders.tiers.anonymous[0].refill-rate=1")
			.run());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("ratelimit.policies.orders.tiers.anonymous[0].algorithm: was token_bucket, must be one of "
					+ "[fixed-window, sliding-window-log, sliding-window-counter, token-bucket, leaky-bucket, concurrency]");
	}

	@Test
	void anInvalidTrustedProxyStopsTheApplicationWithAReport(CapturedOutput output) {
		assertThatException().isThrownBy(() -> GatewayRunner.application("ratelimit.trusted-proxies[0]=10.0.0.0/8",
				"ratelimit.trusted-proxies[1]=lb.internal/24").run());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("ratelimit.trusted-proxies[1]: was 'lb.internal/24', must be an IP address or a CIDR block, "
					+ "such as 10.0.0.0/8 or 2001:db8::/32");
	}

}
