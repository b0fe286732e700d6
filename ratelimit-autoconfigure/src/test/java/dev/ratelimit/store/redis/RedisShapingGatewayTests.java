package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.e2e.GatewayTestApplication;
import dev.ratelimit.e2e.Upstream;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shaping across a fleet: two gateways on one Redis share one queue per client. A
 * burst, 5 requests at once from one client on a leaky bucket of capacity 3 draining
 * 1/s, split over both gateways: the 3 that fit reach the upstream a second apart
 * whichever gateway judged them, and the 2 that do not are refused at once. The drain is
 * slow enough that a loaded machine judges the whole burst before the first held request
 * is released, whose unit would otherwise be free again.
 */
class RedisShapingGatewayTests {

	private static final long MILLI = 1_000_000L;

	@Test
	void twoGatewaysReleaseOneClientsBurstAtTheRateTheyShare() {
		try (Upstream upstream = Upstream.start(); TestRedis redis = TestRedis.startEmbedded()) {
			// One after the other: two applications initializing Spring Boot's logging at
			// once race on its Logback context.
			List<ConfigurableApplicationContext> gateways = new ArrayList<>();
			try {
				gateways.add(gateway(redis, upstream));
				gateways.add(gateway(redis, upstream));
				// Each gateway's first request through the route, another client's, so that the
				// burst's first, released at once, is not late by a cold path.
				for (ConfigurableApplicationContext gateway : gateways) {
					answer(gateway, "warm-up", "/shaped/warm-up", System.nanoTime()).block(Duration.ofSeconds(10));
				}
				long sent = System.nanoTime();
				List<long[]> answers = Flux.range(0, 5)
					.flatMap((request) -> answer(gateways.get(request % 2), "burst-client", "/shaped/burst", sent), 5)
					.collectList()
					.block(Duration.ofSeconds(30));
				List<Long> refusedAfter = new ArrayList<>();
				for (long[] answer : answers) {
					if (answer[0] == 429) {
						refusedAfter.add(answer[1]);
					}
				}
				assertThat(answers).extracting((answer) -> answer[0]).containsOnly(200L, 429L);
				// Refused at once: had they waited for a place, they would have come back after
				// the last release, 2 s on.
				assertThat(refusedAfter).hasSize(2).allMatch((nanos) -> nanos < 1_500 * MILLI);
				List<Long> arrivals = upstream.arrivals("/shaped/burst");
				assertThat(arrivals).hasSize(3);
				for (int i = 1; i < arrivals.size(); i++) {
					// Each release instant is the first decision's, in Redis time, plus the queue
					// ahead of it drained; each gateway starts its timer once Redis has answered.
					// So never early, whichever gateway judged it, where unshaped all three arrive
					// within milliseconds; a stalled node makes a release late, never early.
					assertThat(arrivals.get(i) - sent).as("arrival %d after the burst was sent", i)
						.isGreaterThanOrEqualTo(i * 1000 * MILLI);
				}
			}
			finally {
				gateways.forEach(ConfigurableApplicationContext::close);
			}
		}
	}

	/**
	 * The status of a request of {@code client} on a new connection, and the nanoseconds
	 * from {@code sent} until it was answered.
	 */
	private static Mono<long[]> answer(ConfigurableApplicationContext gateway, String client, String path,
			long sent) {
		return HttpClient.newConnection()
			.headers((headers) -> headers.add("X-Client", client))
			.get()
			.uri("http://127.0.0.1:" + gateway.getEnvironment().getProperty("local.server.port") + path)
			.responseSingle((response, body) -> body
				.then(Mono.fromSupplier(() -> new long[] { response.status().code(), System.nanoTime() - sent })));
	}

	private static ConfigurableApplicationContext gateway(TestRedis redis, Upstream upstream) {
		return new SpringApplicationBuilder(GatewayTestApplication.class)
			.properties("server.port=0", "spring.main.banner-mode=off", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "ratelimit.store=redis",
					"ratelimit.policies.shaped.key=header:X-Client",
					"ratelimit.policies.shaped.tiers.anonymous[0].algorithm=leaky-bucket",
					"ratelimit.policies.shaped.tiers.anonymous[0].capacity=3",
					"ratelimit.policies.shaped.tiers.anonymous[0].drain-rate=1",
					"ratelimit.policies.shaped.tiers.anonymous[0].shaping.max-delay=3s",
					"spring.cloud.gateway.server.webflux.routes[0].id=shaped",
					"spring.cloud.gateway.server.webflux.routes[0].uri=" + upstream.uri(),
					"spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/shaped/**",
					"spring.cloud.gateway.server.webflux.routes[0].filters[0]=RateLimit=shaped")
			.run();
	}

}
