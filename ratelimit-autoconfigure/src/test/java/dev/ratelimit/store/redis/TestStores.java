package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.policy.RateLimitPolicy;

import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.store.hybrid.HybridBucketStore;
import dev.ratelimit.support.MonotonicClock;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * Redis-backed stores for tests, on the system clock unless given one, keys prefixed {@code rl}.
 */
final class TestStores {

	/**
	 * How long a store's start-up waits for Redis here: as long as before the warm-up,
	 * so that the tests starting stores on a Redis that does not answer take no longer.
	 */
	static final Duration START_UP_WAIT = Duration.ofSeconds(1);

	private TestStores() {
	}

	/**
	 * A guard whose breaker opens after {@code failureThreshold} failures for
	 * {@code openDuration}, probing every second once probing is started, with a local
	 * store for {@link FailureMode#LOCAL}.
	 */
	static RemoteFailureGuard guard(String storeName, FailureMode mode, int failureThreshold, Duration openDuration) {
		return guard(storeName, mode, failureThreshold, openDuration, Duration.ofSeconds(1));
	}

	/**
	 * A guard as above, probing every {@code probeInterval} once probing is started.
	 */
	static RemoteFailureGuard guard(String storeName, FailureMode mode, int failureThreshold, Duration openDuration,
			Duration probeInterval) {
		CircuitBreaker breaker = new CircuitBreaker(MonotonicClock.SYSTEM, failureThreshold, openDuration.toNanos());
		return new RemoteFailureGuard(storeName, mode, breaker, probeInterval,
				new CaffeineBucketStore(MonotonicClock.SYSTEM, 1000), MonotonicClock.SYSTEM);
	}

	/**
	 * A store set up as the application context sets it up: its connection opened (or
	 * given up on) before the first request.
	 */
	static RedisBucketStore redis(ReactiveStringRedisTemplate template, Duration timeout, RemoteFailureGuard guard) {
		return redis(template, timeout, guard, MonotonicClock.SYSTEM);
	}

	/**
	 * A store as above on {@code clock}.
	 */
	static RedisBucketStore redis(ReactiveStringRedisTemplate template, Duration timeout, RemoteFailureGuard guard,
			MonotonicClock clock) {
		RedisBucketStore store = new RedisBucketStore(new BucketScript(template, "rl"), timeout, guard, clock,
				START_UP_WAIT);
		store.afterSingletonsInstantiated();
		return store;
	}

	/**
	 * A store as above whose start-up loads the lean scripts of {@code policies}' tiers.
	 */
	static RedisBucketStore redis(ReactiveStringRedisTemplate template, Duration timeout, RemoteFailureGuard guard,
			List<RateLimitPolicy> policies) {
		RedisBucketStore store = new RedisBucketStore(new BucketScript(template, "rl"), timeout, guard,
				MonotonicClock.SYSTEM, START_UP_WAIT, RedisBucketStore.DEFAULT_MAX_BATCH, true, () -> policies);
		store.afterSingletonsInstantiated();
		return store;
	}

	/**
	 * A store as above whose slots are leased for {@code slotLease}, started as the
	 * application context starts it (its probe, its lease renewal); the caller stops it.
	 */
	static RedisBucketStore startedRedis(ReactiveStringRedisTemplate template, Duration timeout,
			RemoteFailureGuard guard, Duration slotLease) {
		RedisBucketStore store = new RedisBucketStore(new BucketScript(template, "rl", slotLease), timeout, guard,
				MonotonicClock.SYSTEM, START_UP_WAIT);
		store.afterSingletonsInstantiated();
		store.start();
		return store;
	}

	/**
	 * A started hybrid store; the caller stops it.
	 */
	static HybridBucketStore hybrid(ReactiveStringRedisTemplate template, Duration timeout, Duration syncInterval,
			RemoteFailureGuard guard) {
		HybridBucketStore store = new HybridBucketStore(new BucketScript(template, "rl"), timeout, syncInterval, guard,
				MonotonicClock.SYSTEM, START_UP_WAIT);
		store.start();
		return store;
	}

}
