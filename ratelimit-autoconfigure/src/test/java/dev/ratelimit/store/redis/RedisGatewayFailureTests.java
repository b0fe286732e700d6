package dev.ratelimit.store.redis;

import java.time.Duration;

import dev.ratelimit.e2e.RecordingListener;
import dev.ratelimit.e2e.Upstream;
import dev.ratelimit.store.StoreHealth;
import dev.ratelimit.web.Outcome;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis stopped under a running gateway ({@code on-failure: deny}) and started again:
 * requests are rejected quickly with a Retry-After and counted as errors, and limiting
 * resumes with no restart of the gateway.
 */
class RedisGatewayFailureTests {

	private static final Upstream upstream = Upstream.start();

	private static TestRedis redis;

	private static ConfigurableApplicationContext gateway;

	private static WebTestClient client;

	@BeforeAll
	static void startGateway() {
		redis = TestRedis.startEmbedded();
		// Long enough for a cold first call on a busy machine (script load, no JIT yet), so
		// that only the outage times out.
		gateway = RedisGatewayTests.gateway(redis, upstream, "1s", "deny");
		client = RedisGatewayTests.client(gateway);
	}

	@AfterAll
	static void stopGateway() {
		gateway.close();
		redis.close();
		upstream.close();
	}

	@Test
	void deniesWhileRedisIsDownAndResumesLimitingWhenItReturns() {
		assertThat(RedisGatewayTests.status(client, "/exact/before", "client")).isEqualTo(HttpStatus.OK);
		redis.stop();
		RecordingListener listener = gateway.getBean(RecordingListener.class);
		int decisionsBefore = listener.decisions().size();
		for (int i = 0; i < 10; i++) {
			long started = System.nanoTime();
			EntityExchangeResult<byte[]> result = client.get()
				.uri("/exact/during")
				.header("X-Client", "client")
				.exchange()
				.expectBody()
				.returnResult();
			// Bounded by the 1 s timeout (then the open breaker), far from a stall: Lettuce
			// would queue the command until its 60 s command timeout. The margin is for a
			// busy machine's scheduling, not for the code.
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
			assertThat(result.getStatus().value()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS.value());
			assertThat(Long.parseLong(result.getResponseHeaders().getFirst("Retry-After"))).isGreaterThanOrEqualTo(1);
		}
		assertThat(upstream.hits("/exact/during")).isZero();
		assertThat(listener.decisions().subList(decisionsBefore, listener.decisions().size()))
			.extracting(RecordingListener.Decision::outcome)
			.containsOnly(Outcome.ERROR);
		StoreHealth health = gateway.getBean(RedisBucketStore.class).health();
		assertThat(health.up()).isFalse();
		assertThat(health.details()).containsEntry("failureMode", "deny").containsEntry("circuitBreaker", "open");

		redis.restart();
		Pause.untilRecovered("Redis decides again",
				() -> RedisGatewayTests.status(client, "/exact/after", "recovering") == HttpStatus.OK);
		// Limiting resumes: the limit of 20 holds for a new client.
		int admitted = 0;
		for (int i = 0; i < 25; i++) {
			if (RedisGatewayTests.status(client, "/exact/after", "after-recovery") == HttpStatus.OK) {
				admitted++;
			}
		}
		assertThat(admitted).isEqualTo(20);
		assertThat(gateway.getBean(RedisBucketStore.class).health().up()).isTrue();
	}

}
