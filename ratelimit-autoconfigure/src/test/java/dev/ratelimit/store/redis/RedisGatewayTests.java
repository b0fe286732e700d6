package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.e2e.GatewayTestApplication;
import dev.ratelimit.e2e.Upstream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two gateway applications on different ports sharing one Redis: one global limit
 * per client, exact in {@code redis} mode and within the documented bound in
 * {@code hybrid} mode.
 */
class RedisGatewayTests {

	private static final Upstream upstream = Upstream.start();

	private static TestRedis redis;

	private static final List<ConfigurableApplicationContext> gateways = new ArrayList<>();

	private static final List<WebTestClient> clients = new ArrayList<>();

	@BeforeAll
	static void startGateways() {
		redis = TestRedis.start();
		redis.flushAll();
		for (int i = 0; i < 2; i++) {
			// A timeout no busy machine reaches: these tests count what Redis decided, and
			// a timed-out call would be decided by on-failure instead.
			ConfigurableApplicationContext gateway = gateway(redis, upstream, "5s", "deny");
			gateways.add(gateway);
			clients.add(client(gateway));
		}
	}

	@AfterAll
	static void stopGateways() {
		gateways.forEach(ConfigurableApplicationContext::close);
		redis.close();
		upstream.close();
	}

	@Test
	void redisModeEnforcesOneGlobalLimitExactly() {
		// Eight callers at a time, spread over both gateways.
		List<HttpStatus> statuses = Flux.range(0, 60)
			.parallel(8)
			.runOn(Schedulers.boundedElastic())
			.map((i) -> status(clients.get(i % clients.size()), "/exact/a", "exact-client"))
			.sequential()
			.collectList()
			.block();
		assertThat(statuses).filteredOn(HttpStatus.OK::equals).hasSize(20);
		assertThat(statuses).filteredOn(HttpStatus.TOO_MANY_REQUESTS::equals).hasSize(40);
		assertThat(upstream.hits("/exact/a")).isEqualTo(20);
	}

	@Test
	void redisModeReportsTheGlobalRemainingOnEveryGateway() {
		clients.get(0).get().uri("/exact/b").header("X-Client", "headers-client").exchange()
			.expectHeader().valueEquals("RateLimit-Remaining", "19")
			.expectBody(Void.class);
		clients.get(1).get().uri("/exact/b").header("X-Client", "headers-client").exchange()
			.expectHeader().valueEquals("RateLimit-Remaining", "18")
			.expectBody(Void.class);
	}

	@Test
	void hybridModeStaysWithinItsBound() {
		// A window that does not end during the test: the bound is the limit itself.
		List<HttpStatus> statuses = send("/hybrid/a", "hybrid-client", 90);
		long admitted = statuses.stream().filter(HttpStatus.OK::equals).count();
		assertThat(admitted).isLessThanOrEqualTo(30).isPositive();
		assertThat(upstream.hits("/hybrid/a")).isEqualTo((int) admitted);
		assertThat(statuses).filteredOn(HttpStatus.TOO_MANY_REQUESTS::equals).hasSize(90 - (int) admitted);
	}

	@Test
	void hybridHeadersReportWhatTheClientCanStillUseOnThatGateway() {
		// One gateway: the units it leased and has not admitted are still the client's.
		for (int remaining = 29; remaining >= 26; remaining--) {
			clients.get(0).get().uri("/hybrid/b").header("X-Client", "hybrid-headers-client").exchange()
				.expectStatus().isOk()
				.expectHeader().valueEquals("RateLimit-Remaining", Integer.toString(remaining))
				.expectBody(Void.class);
		}
	}

	/**
	 * {@code count} requests of one client, one after the other, alternating between
	 * the gateways.
	 */
	static List<HttpStatus> send(String path, String clientKey, int count) {
		List<HttpStatus> statuses = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			statuses.add(status(clients.get(i % clients.size()), path, clientKey));
		}
		return statuses;
	}

	static HttpStatus status(WebTestClient client, String path, String clientKey) {
		return HttpStatus.valueOf(client.get()
			.uri(path)
			.header("X-Client", clientKey)
			.exchange()
			.returnResult(Void.class)
			.getStatus()
			.value());
	}

	/**
	 * A gateway on {@code redis} with the routes {@code /exact/**} (store {@code redis},
	 * 20 a day per {@code X-Client}) and {@code /hybrid/**} (store {@code hybrid}, 30),
	 * and {@code extraProperties} (which override those above).
	 */
	static ConfigurableApplicationContext gateway(TestRedis redis, Upstream upstream, String timeout,
			String onFailure, String... extraProperties) {
		return new SpringApplicationBuilder(GatewayTestApplication.class).properties("server.port=0",
				"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
				"ratelimit.store=redis", "ratelimit.redis.timeout=" + timeout,
				"ratelimit.redis.on-failure=" + onFailure, "ratelimit.redis.circuit-breaker.failure-threshold=2",
				"ratelimit.redis.circuit-breaker.open-duration=500ms",
				"ratelimit.policies.exact.key=header:X-Client",
				"ratelimit.policies.exact.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.exact.tiers.anonymous[0].limit=20",
				"ratelimit.policies.exact.tiers.anonymous[0].window=1d",
				"ratelimit.policies.hybrid.key=header:X-Client", "ratelimit.policies.hybrid.store=hybrid",
				"ratelimit.policies.hybrid.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.hybrid.tiers.anonymous[0].limit=30",
				"ratelimit.policies.hybrid.tiers.anonymous[0].window=1d",
				"spring.cloud.gateway.server.webflux.routes[0].id=exact",
				"spring.cloud.gateway.server.webflux.routes[0].uri=" + upstream.uri(),
				"spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/exact/**",
				"spring.cloud.gateway.server.webflux.routes[0].filters[0]=RateLimit=exact",
				"spring.cloud.gateway.server.webflux.routes[1].id=hybrid",
				"spring.cloud.gateway.server.webflux.routes[1].uri=" + upstream.uri(),
				"spring.cloud.gateway.server.webflux.routes[1].predicates[0]=Path=/hybrid/**",
				"spring.cloud.gateway.server.webflux.routes[1].filters[0]=RateLimit=hybrid")
			.properties(extraProperties)
			.run();
	}

	static WebTestClient client(ConfigurableApplicationContext gateway) {
		String port = gateway.getEnvironment().getProperty("local.server.port");
		return WebTestClient.bindToServer().baseUrl("http://127.0.0.1:" + port).responseTimeout(Duration.ofSeconds(10))
			.build();
	}

}
