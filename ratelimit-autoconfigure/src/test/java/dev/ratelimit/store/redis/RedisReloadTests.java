package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Penalty;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.AfterResponse;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketStore;
import dev.ratelimit.store.hybrid.HybridBucketStore;
import dev.ratelimit.testsupport.TestPolicies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Buckets in Redis when the policies are reloaded: a limit whose parameters changed
 * starts afresh under keys of its own, never reading what the old limit wrote; an
 * unchanged limit keeps its state. And what a store keeps per limit and tier follows the
 * reload: a limit it adds finds its lean script in Redis before its first request, as
 * the start-up's limits do, and what the store kept for the limits, tiers and policies
 * it removed is forgotten, however many reloads come.
 */
class RedisReloadTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	@RegisterExtension
	static final SharedRedis redis = new SharedRedis();

	@Test
	void aChangedLimitStartsAfreshAndAnUnchangedOneKeepsItsCount() {
		RedisBucketStore store = store();
		BucketId id = id();
		Tier before = TestPolicies.tier("free", new FixedWindow(5, Duration.ofHours(1)),
				new FixedWindow(2, Duration.ofSeconds(1)));
		assertThat(acquire(store, id, before, 2).allowed()).isTrue();
		Tier after = TestPolicies.tier("free", new FixedWindow(5, Duration.ofHours(1)),
				new FixedWindow(2, Duration.ofHours(1)));
		Verdict verdict = acquire(store, id, after, 1);
		assertThat(verdict.allowed()).isTrue();
		assertThat(verdict.fallback()).isFalse();
		assertThat(verdict.decision(0).remaining()).isEqualTo(2);
		assertThat(verdict.decision(1).remaining()).isEqualTo(1);
	}

	@Test
	void anotherAlgorithmAtTheSamePositionNeverReadsTheOldState() {
		RedisBucketStore store = store();
		BucketId id = id();
		acquire(store, id, TestPolicies.tier("free", new FixedWindow(5, Duration.ofHours(1))), 5);
		// A list where a hash was: the script would fail with WRONGTYPE on the old key.
		Verdict log = acquire(store, id, TestPolicies.tier("free", new SlidingWindowLog(5, Duration.ofHours(1))), 1);
		assertThat(log.fallback()).isFalse();
		assertThat(log.allowed()).isTrue();
		assertThat(log.reported().remaining()).isEqualTo(4);
	}

	@Test
	void aHybridLeaseOfTheOldTierIsGivenUpForTheReloadedOne() {
		HybridBucketStore store = TestStores.hybrid(redis.template(), TIMEOUT, Duration.ofMillis(100),
				TestStores.guard("hybrid", FailureMode.DENY, 5, Duration.ofSeconds(1)));
		try {
			BucketId id = id();
			Tier before = TestPolicies.tier("free", new TokenBucket(10, 1, Duration.ofHours(1)));
			assertThat(acquire(store, id, before, 1).reported().limit()).isEqualTo(10);
			Tier after = TestPolicies.tier("free", new TokenBucket(50, 1, Duration.ofHours(1)));
			Verdict verdict = acquire(store, id, after, 1);
			assertThat(verdict.allowed()).isTrue();
			assertThat(verdict.reported().limit()).isEqualTo(50);
		}
		finally {
			store.stop();
		}
	}

	@Test
	void aLimitTheReloadAddsFindsItsScriptInRedisBeforeItsFirstRequest() {
		Limit before = new TokenBucket(7, 3, Duration.ofSeconds(2));
		RedisBucketStore store = TestStores.redis(redis.template(), TIMEOUT, guard(),
				List.of(TestPolicies.policy("orders", StoreType.REDIS, TestPolicies.tier("free", before))));
		redis.get().flushScripts();
		Limit changed = new TokenBucket(8, 3, Duration.ofSeconds(2));
		Limit added = new SlidingWindowCounter(70, Duration.ofMinutes(3));
		Limit local = new FixedWindow(11, Duration.ofSeconds(11));
		RateLimitPolicy search = new RateLimitPolicy("search", new KeySource.ClientIp(), false, 1, StoreType.REDIS,
				Map.of(), TestPolicies.tier("anonymous", added), OnMissingKey.CLIENT_ADDRESS,
				RateLimitPolicy.DEFAULT_MISSING_KEY_STATUS, null, AfterResponse.NONE,
				new Penalty(Duration.ofMinutes(1)));
		store.policiesReloaded(List.of(TestPolicies.policy("orders", StoreType.REDIS, TestPolicies.tier("free", changed)),
				search, TestPolicies.policy("local", StoreType.CAFFEINE, TestPolicies.tier("anonymous", local))));
		List<String> inForce = List.of(lean(changed), lean(added), ScriptAssembler.penalizedLean(TestLeanLimits.of(added)));
		Pause.until("the reloaded limits' scripts are in Redis", TIMEOUT,
				() -> !redis.get().cached(inForce).contains(false));
		assertThat(redis.get().cached(List.of(lean(before), lean(local)))).containsOnly(false);
		assertThat(store.script.leanScriptCount()).isEqualTo(3);
	}

	@Test
	void theExactStoreKeepsOnlyTheScriptsAndLayoutsOfTheLimitsInForceAcrossReloads() {
		RedisBucketStore store = TestStores.redis(redis.template(), TIMEOUT, guard(), List.of());
		for (int reload = 1; reload <= 20; reload++) {
			Tier tier = TestPolicies.tier("free", new FixedWindow(reload, Duration.ofMinutes(1)));
			RateLimitPolicy policy = TestPolicies.policy("orders-" + reload, StoreType.REDIS, tier);
			store.policiesReloaded(List.of(policy));
			assertThat(acquire(store, new BucketId(policy.id(), "free", "client"), tier, 1).allowed()).isTrue();
		}
		assertThat(store.script.leanScriptCount()).isEqualTo(1);
		assertThat(store.script.layouts().size()).isEqualTo(1);
	}

	@Test
	void theHybridStoreKeepsOnlyTheLayoutsOfTheTiersInForce() {
		HybridBucketStore store = TestStores.hybrid(redis.template(), TIMEOUT, Duration.ofMinutes(1), guard());
		try {
			Tier free = TestPolicies.tier("free", new FixedWindow(5, Duration.ofMinutes(1)));
			Tier pro = TestPolicies.tier("pro", new FixedWindow(50, Duration.ofMinutes(1)));
			for (Tier tier : List.of(free, pro)) {
				assertThat(acquire(store, new BucketId("orders", tier.name(), "client"), tier, 1).allowed()).isTrue();
			}
			assertThat(store.script.layouts().size()).isEqualTo(2);
			store.policiesReloaded(List.of(TestPolicies.policy("orders", StoreType.HYBRID, free)));
			assertThat(store.script.layouts().size()).isEqualTo(1);
			store.policiesReloaded(List.of());
			assertThat(store.script.layouts().size()).isZero();
		}
		finally {
			store.stop();
		}
	}

	private static RemoteFailureGuard guard() {
		return TestStores.guard("redis", FailureMode.DENY, 5, Duration.ofSeconds(1));
	}

	private static String lean(Limit limit) {
		return ScriptAssembler.lean(TestLeanLimits.of(limit));
	}

	private static RedisBucketStore store() {
		return TestStores.redis(redis.template(), TIMEOUT, guard());
	}

	private static BucketId id() {
		return new BucketId("reload", "free", UUID.randomUUID().toString());
	}

	private static Verdict acquire(BucketStore store, BucketId id, Tier tier, long cost) {
		return store.acquire(id, tier, cost).block(TIMEOUT.multipliedBy(2));
	}

}
