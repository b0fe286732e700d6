package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketStore;
import dev.ratelimit.store.StoreHealth;
import dev.ratelimit.store.hybrid.HybridBucketStore;
import dev.ratelimit.testsupport.TestPolicies;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Redis stopped mid-traffic and started again on the same port: each failure mode
 * decides as configured, no request waits much beyond the timeout, health shows the
 * outage, and limiting resumes without a restart. Needs the embedded Redis.
 */
class RedisFailureModeTests {

	/**
	 * Long enough for Redis to answer a cold first call on a busy machine (the script
	 * loads, the JIT has not compiled anything yet), so that only the outage times out.
	 */
	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	/**
	 * Far above the timeout plus a busy machine's scheduling delays, far below a
	 * stalled request: Lettuce queues commands while disconnected and gives up only
	 * after its 60 s command timeout.
	 */
	private static final long LONGEST_WAIT_MILLIS = 5000;

	private static final Tier TIER = TestPolicies.tier("free", new FixedWindow(1, Duration.ofDays(1)));

	private final TestRedis redis = TestRedis.startEmbedded();

	private final List<BucketStore> stores = new ArrayList<>();

	/**
	 * Opens the client's connection before anything is timed: Lettuce connects on first
	 * use, and the waits measured here are those of decisions, not of the connection.
	 */
	@BeforeEach
	void connect() {
		this.redis.flushAll();
	}

	@AfterEach
	void stopRedis() {
		for (BucketStore store : this.stores) {
			if (store instanceof HybridBucketStore hybrid) {
				hybrid.stop();
			}
		}
		this.redis.close();
	}

	@Test
	void allowAdmitsWithoutQuotaWhileRedisIsDown() {
		assertOutage(redisStore(FailureMode.ALLOW), "allow", (store) -> {
			for (int i = 0; i < 10; i++) {
				Verdict verdict = timedAcquire(store, "during");
				assertThat(verdict.fallback()).isTrue();
				assertThat(verdict.allowed()).isTrue();
				assertThat(verdict.reported()).isNull();
			}
			// The read side answers with an error, bounded, never a hang.
			RateLimitPolicy policy = TestPolicies.policy("orders", StoreType.REDIS, TIER);
			long started = System.nanoTime();
			assertThatThrownBy(() -> store.bucketCount(policy).block()).isInstanceOf(RuntimeException.class);
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
		});
	}

	@Test
	void denyRejectsUntilTheBreakerProbesAgain() {
		assertOutage(redisStore(FailureMode.DENY), "deny", (store) -> {
			for (int i = 0; i < 10; i++) {
				Verdict verdict = timedAcquire(store, "during-" + i);
				assertThat(verdict.fallback()).isTrue();
				assertThat(verdict.allowed()).isFalse();
				assertThat(verdict.retryAfterSeconds()).isGreaterThanOrEqualTo(1);
			}
		});
	}

	@Test
	void localDecidesOnThisNodesBucketsWhileRedisIsDown() {
		assertOutage(redisStore(FailureMode.LOCAL), "local", (store) -> {
			Verdict first = timedAcquire(store, "during");
			Verdict second = timedAcquire(store, "during");
			assertThat(first.fallback()).isTrue();
			assertThat(first.allowed()).isTrue();
			assertThat(first.reported().limit()).isEqualTo(1);
			assertThat(second.fallback()).isTrue();
			assertThat(second.allowed()).isFalse();
			for (int i = 0; i < 5; i++) {
				assertThat(timedAcquire(store, "during").allowed()).isFalse();
			}
		});
	}

	@Test
	void redisStoppedUnderConcurrentTrafficStallsNoRequest() throws Exception {
		BucketStore store = redisStore(FailureMode.ALLOW);
		Tier generous = TestPolicies.tier("free", new FixedWindow(1_000_000, Duration.ofDays(1)));
		AtomicInteger started = new AtomicInteger();
		List<Long> waits = new CopyOnWriteArrayList<>();
		List<Verdict> verdicts = new CopyOnWriteArrayList<>();
		CompletableFuture<Void> traffic = Flux.interval(Duration.ofMillis(5))
			.take(Duration.ofMillis(2500))
			.onBackpressureDrop()
			.flatMap((tick) -> {
				started.incrementAndGet();
				long startedAt = System.nanoTime();
				return store.acquire(new BucketId("orders", "free", "key-" + (tick % 16)), generous, 1)
					.doOnNext((verdict) -> {
						waits.add(System.nanoTime() - startedAt);
						verdicts.add(verdict);
					});
			}, 16)
			.then()
			.toFuture();
		Pause.sleep(300);
		this.redis.stop();
		// Every request started is answered, the ones in flight when Redis stopped included:
		// a stalled one would hold the traffic open past this wait.
		traffic.get(2500 + LONGEST_WAIT_MILLIS, TimeUnit.MILLISECONDS);
		assertThat(verdicts).hasSize(started.get());
		assertThat(verdicts).anyMatch((verdict) -> !verdict.fallback()).anyMatch(Verdict::fallback)
			.allMatch(Verdict::allowed);
		assertThat(waits).allSatisfy((nanos) -> assertThat(Duration.ofNanos(nanos).toMillis())
			.isLessThan(LONGEST_WAIT_MILLIS));
	}

	@Test
	void hybridFallsBackOnceItsLeaseIsSpentAndRecovers() {
		assertOutage(hybridStore(FailureMode.DENY), "deny", (store) -> {
			for (int i = 0; i < 10; i++) {
				Verdict verdict = timedAcquire(store, "during-" + i);
				assertThat(verdict.fallback()).isTrue();
				assertThat(verdict.allowed()).isFalse();
			}
		});
	}

	/**
	 * Limited before the outage; {@code whileDown} decides while Redis is stopped, and
	 * health shows the outage; limited again once Redis is back.
	 */
	private void assertOutage(BucketStore store, String failureMode, Consumer<BucketStore> whileDown) {
		assertLimited(store, "before");
		this.redis.stop();
		whileDown.accept(store);
		assertDown(store, failureMode);
		this.redis.restart();
		assertRecovers(store);
	}

	/**
	 * The limit of one admits one request of a new key and rejects the next, both
	 * decided by Redis.
	 */
	private static void assertLimited(BucketStore store, String key) {
		Verdict first = timedAcquire(store, key);
		Verdict second = timedAcquire(store, key);
		assertThat(first.fallback()).isFalse();
		assertThat(first.allowed()).isTrue();
		assertThat(second.fallback()).isFalse();
		assertThat(second.allowed()).isFalse();
	}

	private static void assertDown(BucketStore store, String failureMode) {
		StoreHealth health = store.health();
		assertThat(health.up()).isFalse();
		assertThat(health.details()).containsEntry("store", store.name())
			.containsEntry("remote", "DOWN")
			.containsEntry("failureMode", failureMode)
			.containsEntry("circuitBreaker", "open")
			.containsKey("lastError");
	}

	/**
	 * Within a generous time, a request is decided by Redis again; then limiting
	 * holds.
	 */
	private static void assertRecovers(BucketStore store) {
		AtomicInteger attempt = new AtomicInteger();
		Pause.untilRecovered("Redis decides again",
				() -> !timedAcquire(store, "after-" + attempt.getAndIncrement()).fallback());
		assertLimited(store, "after-recovery");
		assertThat(store.health().up()).isTrue();
	}

	private static Verdict timedAcquire(BucketStore store, String key) {
		long started = System.nanoTime();
		Verdict verdict = store.acquire(new BucketId("orders", "free", key), TIER, 1).block();
		long waitedMillis = Duration.ofNanos(System.nanoTime() - started).toMillis();
		assertThat(waitedMillis).as("wait for a decision").isLessThan(LONGEST_WAIT_MILLIS);
		return verdict;
	}

	private BucketStore redisStore(FailureMode mode) {
		RedisBucketStore store = TestStores.redis(this.redis.template(), TIMEOUT, guard("redis", mode));
		this.stores.add(store);
		return store;
	}

	private BucketStore hybridStore(FailureMode mode) {
		HybridBucketStore store = TestStores.hybrid(this.redis.template(), TIMEOUT, Duration.ofMillis(100),
				guard("hybrid", mode));
		this.stores.add(store);
		return store;
	}

	private static RemoteFailureGuard guard(String name, FailureMode mode) {
		return TestStores.guard(name, mode, 3, Duration.ofMillis(300));
	}

}
