package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.e2e.Upstream;
import dev.ratelimit.store.hybrid.HybridBucketStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a load balancer sees of a gateway during a real Redis outage and after it, per
 * {@code on-failure}: {@code /actuator/health} answers 200 while the gateway serves
 * ({@code allow}, {@code local}) and 503 while it refuses ({@code deny}), the
 * {@code ratelimit} details telling the truth either way; the liveness and readiness
 * groups answer 200 in every mode; Boot's own {@code redis} contributor, unless
 * disabled, is DOWN during any outage. Once Redis is back every gateway is healthy
 * again within the probe interval, with no request sent to it.
 */
class RedisHealthGatewayTests {

	private static final Duration PROBE_INTERVAL = Duration.ofMillis(200);

	/**
	 * Long enough for a cold first call on a busy machine, so that only the outage
	 * fails.
	 */
	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	/**
	 * As in {@link RedisHealthProbeTests}: a probe sent while the connection was down
	 * waits out its timeout, the next succeeds; with margin for a busy machine.
	 */
	private static final Duration HEALED_WITHIN = PROBE_INTERVAL.plus(TIMEOUT).multipliedBy(3);

	private static final Upstream upstream = Upstream.start();

	private static TestRedis redis;

	private static final List<Gateway> gateways = new ArrayList<>();

	/**
	 * @param onFailure the gateway's {@code ratelimit.redis.on-failure}
	 * @param probes whether the liveness and readiness groups are on
	 * @param bootRedisHealth whether Boot's own {@code redis} contributor is on
	 */
	record Gateway(String onFailure, boolean probes, boolean bootRedisHealth, ConfigurableApplicationContext context,
			WebTestClient client) {

		/**
		 * What {@code /actuator/health} answers during the outage.
		 */
		HttpStatus healthDuringOutage() {
			boolean serving = !this.onFailure.equals("deny");
			return (serving && !this.bootRedisHealth) ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE;
		}

		@Override
		public String toString() {
			return "on-failure=" + this.onFailure + (this.probes ? ", probes" : "")
					+ (this.bootRedisHealth ? ", Boot's redis health" : "");
		}

	}

	@BeforeAll
	static void startGateways() {
		redis = TestRedis.startEmbedded();
		gateways.add(gateway("allow", true, false));
		gateways.add(gateway("local", false, false));
		gateways.add(gateway("deny", true, true));
	}

	@AfterAll
	static void stopGateways() {
		gateways.forEach((gateway) -> gateway.context().close());
		redis.close();
		upstream.close();
	}

	@Test
	void healthDuringARedisOutageFollowsOnFailureAndHealsWithoutTraffic() {
		for (Gateway gateway : gateways) {
			assertThat(status(gateway, "/exact/before", "before")).as(gateway.toString()).isEqualTo(HttpStatus.OK);
			assertThat(status(gateway, "/hybrid/before", "before")).as(gateway.toString()).isEqualTo(HttpStatus.OK);
			assertThat(health(gateway, "/actuator/health")).as(gateway.toString()).isEqualTo(HttpStatus.OK);
		}
		redis.stop();
		for (Gateway gateway : gateways) {
			HttpStatus served = gateway.onFailure().equals("deny") ? HttpStatus.TOO_MANY_REQUESTS : HttpStatus.OK;
			// One failure opens each breaker; the first request may find the connection
			// still open and fail only once it is gone, hence the loop.
			Pause.untilRecovered("both stores of " + gateway + " see the outage", () -> {
				// A new client each time: local's own buckets never run out here.
				String client = "during-" + System.nanoTime();
				assertThat(status(gateway, "/exact/during", client)).as(gateway.toString()).isEqualTo(served);
				assertThat(status(gateway, "/hybrid/during", client)).as(gateway.toString()).isEqualTo(served);
				return remote(gateway, "redis").equals("DOWN") && remote(gateway, "hybrid").equals("DOWN");
			});
		}
		for (Gateway gateway : gateways) {
			String store = gateway.onFailure().equals("deny") ? "DOWN" : "UP";
			gateway.client()
				.get()
				.uri("/actuator/health")
				.exchange()
				.expectStatus()
				.isEqualTo(gateway.healthDuringOutage())
				.expectBody()
				.jsonPath("$.components.ratelimit.status").isEqualTo(store)
				.jsonPath("$.components.ratelimit.components.redis.status").isEqualTo(store)
				.jsonPath("$.components.ratelimit.components.redis.details.remote").isEqualTo("DOWN")
				.jsonPath("$.components.ratelimit.components.redis.details.failureMode").isEqualTo(gateway.onFailure())
				.jsonPath("$.components.ratelimit.components.redis.details.circuitBreaker").isEqualTo("open")
				.jsonPath("$.components.ratelimit.components.redis.details.lastError").isNotEmpty()
				.jsonPath("$.components.ratelimit.components.hybrid.status").isEqualTo(store)
				.jsonPath("$.components.ratelimit.components.hybrid.details.remote").isEqualTo("DOWN");
			if (gateway.bootRedisHealth()) {
				gateway.client().get().uri("/actuator/health").exchange().expectBody()
					.jsonPath("$.components.redis.status").isEqualTo("DOWN");
			}
			if (gateway.probes()) {
				assertThat(health(gateway, "/actuator/health/liveness")).as(gateway.toString()).isEqualTo(HttpStatus.OK);
				assertThat(health(gateway, "/actuator/health/readiness")).as(gateway.toString())
					.isEqualTo(HttpStatus.OK);
			}
		}
		redis.restart();
		for (Gateway gateway : gateways) {
			// Reconnecting is the client's business; the probe's bound starts once Redis
			// answers on the gateway's connection.
			ReactiveRedisConnectionFactory connections = gateway.context().getBean(ReactiveRedisConnectionFactory.class);
			Pause.untilRecovered("Redis answers " + gateway, () -> connections.getReactiveConnection()
				.ping()
				.timeout(TIMEOUT)
				.onErrorResume((failure) -> Mono.empty())
				.block() != null);
		}
		long answeredAt = System.nanoTime();
		for (Gateway gateway : gateways) {
			long deadline = answeredAt + HEALED_WITHIN.toNanos();
			// Health checks only: no request reaches either store.
			while (health(gateway, "/actuator/health") != HttpStatus.OK || !remote(gateway, "redis").equals("UP")
					|| !remote(gateway, "hybrid").equals("UP")) {
				assertThat(System.nanoTime()).as(gateway + " healthy within " + HEALED_WITHIN + " of Redis answering")
					.isLessThan(deadline);
				Pause.sleep(50);
			}
			for (String store : List.of("redis", "hybrid")) {
				gateway.client().get().uri("/actuator/health/ratelimit/" + store).exchange()
					.expectStatus().isOk()
					.expectBody()
					.jsonPath("$.details.circuitBreaker").isEqualTo("closed");
			}
		}
	}

	private static Gateway gateway(String onFailure, boolean probes, boolean bootRedisHealth) {
		ConfigurableApplicationContext context = RedisGatewayTests.gateway(redis, upstream, TIMEOUT.toMillis() + "ms",
				onFailure, "management.endpoints.web.exposure.include=health",
				"management.endpoint.health.show-details=always",
				"management.endpoint.health.probes.enabled=" + probes,
				"management.health.redis.enabled=" + bootRedisHealth,
				// Bounds Boot's redis contributor, which otherwise waits on Lettuce's minute.
				"spring.data.redis.timeout=" + TIMEOUT.toMillis() + "ms",
				"ratelimit.redis.circuit-breaker.failure-threshold=1",
				// Only the probe, never a request, can close a breaker during the test.
				"ratelimit.redis.circuit-breaker.open-duration=1h",
				"ratelimit.redis.circuit-breaker.probe-interval=" + PROBE_INTERVAL.toMillis() + "ms");
		return new Gateway(onFailure, probes, bootRedisHealth, context, RedisGatewayTests.client(context));
	}

	private static HttpStatus status(Gateway gateway, String path, String client) {
		return RedisGatewayTests.status(gateway.client(), path, client);
	}

	private static HttpStatus health(Gateway gateway, String path) {
		return HttpStatus.valueOf(
				gateway.client().get().uri(path).exchange().returnResult(Void.class).getStatus().value());
	}

	/**
	 * The {@code remote} detail of one store's health.
	 */
	private static String remote(Gateway gateway, String store) {
		Class<? extends RemoteBucketStore> type = store.equals("redis") ? RedisBucketStore.class
				: HybridBucketStore.class;
		return String.valueOf(gateway.context().getBean(type).health().details().get("remote"));
	}

}
