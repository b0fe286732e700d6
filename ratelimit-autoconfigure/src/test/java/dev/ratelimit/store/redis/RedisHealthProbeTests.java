package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketStore;
import dev.ratelimit.store.StoreHealth;
import dev.ratelimit.store.hybrid.HybridBucketStore;
import dev.ratelimit.testsupport.TestPolicies;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis restarted while no request comes for the {@code redis} and {@code hybrid}
 * stores: their background probes alone close the breakers (which would otherwise stay
 * open an hour) and both stores are up again within the probe interval of Redis
 * answering, with no request and no health check; and their health checks alone tell
 * that Redis went down.
 */
class RedisHealthProbeTests {

	private static final Duration PROBE_INTERVAL = Duration.ofMillis(200);

	/**
	 * Long enough for a cold first call on a busy machine, so that only the outage
	 * fails.
	 */
	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	/**
	 * The bound once Redis answers: a probe PING sent while the connection was still
	 * down waits out its timeout, the next tick's succeeds. Comfortably above that for
	 * a busy machine's scheduling.
	 */
	private static final Duration HEALED_WITHIN = PROBE_INTERVAL.plus(TIMEOUT).multipliedBy(3);

	private static final Tier TIER = TestPolicies.tier("free", new FixedWindow(100, Duration.ofDays(1)));

	private final TestRedis redis = TestRedis.startEmbedded();

	private final ReactiveStringRedisTemplate template = this.redis.template();

	private final RemoteFailureGuard redisGuard = guard("redis");

	private final RemoteFailureGuard hybridGuard = guard("hybrid");

	private final RedisBucketStore redisStore = TestStores.redis(this.template, TIMEOUT, this.redisGuard);

	private final HybridBucketStore hybridStore = TestStores.hybrid(this.template, TIMEOUT, Duration.ofMillis(100),
			this.hybridGuard);

	@AfterEach
	void close() {
		this.redisStore.stop();
		this.hybridStore.stop();
		this.redis.close();
	}

	@Test
	void bothStoresAreUpAgainWithinTheProbeIntervalWithoutTraffic() {
		this.redisStore.start();
		// A start-up slower than the tests' wait (a loaded machine) opens the breaker; the
		// probe closes it. The test starts from stores that have reached Redis.
		untilUp(this.redisGuard, System.nanoTime());
		untilUp(this.hybridGuard, System.nanoTime());
		for (BucketStore store : List.of(this.redisStore, this.hybridStore)) {
			assertThat(acquire(store, "before").fallback()).as(store.name()).isFalse();
		}
		this.redis.stop();
		for (BucketStore store : List.of(this.redisStore, this.hybridStore)) {
			assertThat(acquire(store, "during").fallback()).as(store.name()).isTrue();
			StoreHealth health = store.health();
			assertThat(health.up()).as(store.name()).isFalse();
			assertThat(health.details()).as(store.name()).containsEntry("circuitBreaker", "open");
		}
		this.redis.restart();
		long restartedAt = System.nanoTime();
		long answeredAt = untilRedisAnswers();
		// Only the guards are read: no request, and no health check's PING.
		untilUp(this.redisGuard, answeredAt);
		long redisUpAt = System.nanoTime();
		untilUp(this.hybridGuard, answeredAt);
		long hybridUpAt = System.nanoTime();
		System.out.printf("Redis restarted: answered after %d ms; redis store up %d ms and hybrid store %d ms after that "
				+ "(probe interval %d ms)%n", millis(answeredAt - restartedAt), millis(redisUpAt - answeredAt),
				millis(hybridUpAt - answeredAt), PROBE_INTERVAL.toMillis());
		for (BucketStore store : List.of(this.redisStore, this.hybridStore)) {
			StoreHealth health = store.health();
			assertThat(health.up()).as(store.name()).isTrue();
			assertThat(health.details()).as(store.name())
				.containsEntry("remote", "UP")
				.containsEntry("circuitBreaker", "closed");
			assertThat(acquire(store, "after").fallback()).as(store.name()).isFalse();
		}
	}

	@Test
	void aStoreNoRequestReachesTellsFromItsHealthChecksThatRedisIsDown() {
		this.redisStore.start();
		this.redis.stop();
		// No request: only the health checks' PINGs can find the outage.
		for (BucketStore store : List.of(this.redisStore, this.hybridStore)) {
			long deadline = System.nanoTime() + HEALED_WITHIN.toNanos();
			while (store.health().up()) {
				assertThat(System.nanoTime()).as(store.name() + " down within " + HEALED_WITHIN).isLessThan(deadline);
				Pause.sleep(20);
			}
			StoreHealth health = store.health();
			assertThat(health.serving()).as(store.name()).isTrue();
			assertThat(health.details()).as(store.name())
				.containsEntry("remote", "DOWN")
				.containsEntry("circuitBreaker", "open")
				.containsKey("lastError");
		}
		this.redis.restart();
		long answeredAt = untilRedisAnswers();
		untilUp(this.redisGuard, answeredAt);
		untilUp(this.hybridGuard, answeredAt);
	}

	@Test
	void theProbeStopsWithTheStore() {
		this.redisStore.start();
		assertThat(this.redisStore.isRunning()).isTrue();
		assertThat(this.hybridGuard.probing()).isTrue();
		this.redisStore.stop();
		this.hybridStore.stop();
		assertThat(this.redisStore.isRunning()).isFalse();
		assertThat(this.redisGuard.probing()).isFalse();
		assertThat(this.hybridGuard.probing()).isFalse();
	}

	/**
	 * Waits until Redis answers on the stores' connection, and says when: reconnecting
	 * is the client's business (its back-off), the probe's bound starts then.
	 */
	private long untilRedisAnswers() {
		Pause.untilRecovered("Redis answers on the stores' connection",
				() -> this.template.execute((connection) -> connection.ping())
					.next()
					.timeout(TIMEOUT)
					.onErrorResume((failure) -> Mono.empty())
					.block() != null);
		return System.nanoTime();
	}

	private static void untilUp(RemoteFailureGuard guard, long answeredAt) {
		long deadline = answeredAt + HEALED_WITHIN.toNanos();
		while (!guard.up()) {
			assertThat(System.nanoTime()).as(guard.healthDetails() + " up within " + HEALED_WITHIN + " of Redis answering")
				.isLessThan(deadline);
			Pause.sleep(20);
		}
	}

	private static long millis(long nanos) {
		return Duration.ofNanos(nanos).toMillis();
	}

	private static Verdict acquire(BucketStore store, String key) {
		return store.acquire(new BucketId("orders", "free", key), TIER, 1).block();
	}

	/**
	 * One failure opens the breaker for an hour: only the probe can close it here.
	 */
	private static RemoteFailureGuard guard(String store) {
		return TestStores.guard(store, FailureMode.ALLOW, 1, Duration.ofHours(1), PROBE_INTERVAL);
	}

}
