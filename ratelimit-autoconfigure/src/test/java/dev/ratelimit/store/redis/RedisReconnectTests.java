package dev.ratelimit.store.redis;

import java.time.Duration;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.autoconfigure.RedisStoreAutoConfiguration;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.testsupport.TestPolicies;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real restart of Redis on the same port, with the application's own Lettuce client
 * as Spring Boot builds it: decisions come from Redis again within about
 * {@code ratelimit.redis.max-reconnect-delay} of its coming back, not after Lettuce's
 * back-off, which has grown to seconds by then.
 */
class RedisReconnectTests {

	/**
	 * Long enough for Lettuce's own back-off (1ms doubling, on a timer of 100ms ticks)
	 * to wait about four seconds before its next attempt: by then its attempts are
	 * about 2.9s, 5s and 9.1s after the connection was lost.
	 */
	private static final long DOWN_MILLIS = 5500;

	/**
	 * How soon after the restart Redis must decide again: above the default bound of a
	 * second with margin for a busy machine, below the 3.5s Lettuce's own back-off
	 * would still wait.
	 */
	private static final Duration WITHIN = Duration.ofMillis(2500);

	private static final Tier TIER = TestPolicies.tier("anonymous", new FixedWindow(1000, Duration.ofDays(1)));

	private final TestRedis redis = TestRedis.startEmbedded();

	@AfterEach
	void close() {
		this.redis.close();
	}

	@Test
	void decisionsComeFromRedisAgainWithinAboutASecondOfARestart() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DataRedisReactiveAutoConfiguration.class, RateLimitAutoConfiguration.class,
					RedisStoreAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "ratelimit.store=redis",
					"ratelimit.redis.on-failure=deny",
					// A breaker probing often, so that the connection is what decides recovery.
					"ratelimit.redis.circuit-breaker.open-duration=100ms",
					"ratelimit.policies.orders.tiers.anonymous[0].algorithm=fixed-window",
					"ratelimit.policies.orders.tiers.anonymous[0].limit=1000",
					"ratelimit.policies.orders.tiers.anonymous[0].window=1d")
			.run((context) -> {
				RedisBucketStore store = context.getBean(RedisBucketStore.class);
				BucketId id = new BucketId("orders", TIER.name(), "client");
				assertThat(store.acquire(id, TIER, 1).block().fallback()).isFalse();
				this.redis.stop();
				long downUntil = System.nanoTime() + Duration.ofMillis(DOWN_MILLIS).toNanos();
				Pause.until("Redis stays down", Duration.ofMillis(DOWN_MILLIS * 2), () -> {
					Verdict verdict = store.acquire(id, TIER, 1).block();
					assertThat(verdict.fallback()).as("decided while Redis is down").isTrue();
					assertThat(verdict.allowed()).isFalse();
					return System.nanoTime() > downUntil;
				});
				this.redis.restart();
				Pause.until("Redis decides again after its restart", WITHIN,
						() -> !store.acquire(id, TIER, 1).block().fallback());
			});
	}

}
