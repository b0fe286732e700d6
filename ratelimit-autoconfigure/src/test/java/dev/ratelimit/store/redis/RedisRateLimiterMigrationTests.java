package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitRoutesAutoConfiguration;
import dev.ratelimit.support.ManualClock;
import dev.ratelimit.support.MonotonicClock;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The migration from {@code RedisRateLimiter} that docs/spring-cloud-gateway.md
 * documents admits exactly what Spring Cloud Gateway's own script admits: the same
 * request sequence runs through that script, read unchanged from the Spring Cloud
 * Gateway jar, on a real Redis, and through the policy's {@code RateLimiter} bean on a
 * hand-moved clock. The script takes the time in seconds as its third argument in
 * place of Redis's clock, so both see the same instants.
 * <p>
 * The script also gives its keys a time to live of twice the time to fill the bucket,
 * which Redis counts in real time; every case fills in 40 seconds or more, so that no
 * key expires while the test runs.
 */
class RedisRateLimiterMigrationTests {

	@RegisterExtension
	static final SharedRedis redis = new SharedRedis();

	@SuppressWarnings({ "rawtypes", "unchecked" })
	private static final RedisScript<List<Long>> SPRING_CLOUD_GATEWAY_SCRIPT = (RedisScript) RedisScript
		.of(new ClassPathResource("META-INF/scripts/request_rate_limiter.lua"), List.class);

	@ParameterizedTest(name = "replenishRate={0}, burstCapacity={1}, requestedTokens={2}")
	@CsvSource({ "2, 60, 1", "1, 30, 4", "0.5, 10, 1", "10, 200, 3" })
	void admitsWhatRedisRateLimiterAdmits(double replenishRate, long burstCapacity, int requestedTokens) {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
					RateLimitRoutesAutoConfiguration.class))
			.withBean(MonotonicClock.class, ManualClock::new)
			// The mapping of docs/spring-cloud-gateway.md, property by property.
			.withPropertyValues("ratelimit.policies.orders.cost=" + requestedTokens,
					"ratelimit.policies.orders.tiers.anonymous[0].algorithm=token-bucket",
					"ratelimit.policies.orders.tiers.anonymous[0].capacity=" + burstCapacity,
					"ratelimit.policies.orders.tiers.anonymous[0].refill-rate=" + replenishRate,
					"ratelimit.policies.orders.tiers.anonymous[0].refill-period=1s")
			.run((context) -> {
				ManualClock clock = (ManualClock) context.getBean(MonotonicClock.class);
				RateLimiter<?> ours = context.getBean("ordersRateLimiter", RateLimiter.class);
				long startSecond = clock.nanoTime() / 1_000_000_000L;
				List<String> theirs = new ArrayList<>();
				List<String> mine = new ArrayList<>();
				Random random = new Random(11);
				long second = startSecond;
				// Bursts up to about half the bucket, so that some find it empty.
				int largestBurst = (int) (burstCapacity / requestedTokens / 2) + 3;
				for (int step = 0; step < 60; step++) {
					int burst = random.nextInt(largestBurst);
					for (int i = 0; i < burst; i++) {
						String at = "t=" + (second - startSecond) + " #" + i + ": ";
						theirs.add(at + redisRateLimiter(second, replenishRate, burstCapacity, requestedTokens));
						RateLimiter.Response response = ours.isAllowed("orders-route", "alice").block();
						mine.add(at + (response.isAllowed() ? "allowed" : "rejected"));
					}
					long gap = random.nextInt(4);
					second += gap;
					clock.advance(Duration.ofSeconds(gap));
				}
				assertThat(theirs).anyMatch((line) -> line.endsWith("allowed"))
					.anyMatch((line) -> line.endsWith("rejected"));
				assertThat(mine).containsExactlyElementsOf(theirs);
			});
	}

	/**
	 * What Spring Cloud Gateway's script decides, called as {@code RedisRateLimiter}
	 * calls it but with the time given.
	 */
	private static String redisRateLimiter(long nowSeconds, double replenishRate, long burstCapacity,
			int requestedTokens) {
		String prefix = "request_rate_limiter.{orders-route.alice}.";
		List<Long> result = redis.template()
			.execute(SPRING_CLOUD_GATEWAY_SCRIPT, List.of(prefix + "tokens", prefix + "timestamp"),
					List.of(replenishRate + "", burstCapacity + "", nowSeconds + "", requestedTokens + ""))
			.blockFirst();
		return (result.get(0) == 1L) ? "allowed" : "rejected";
	}

}
