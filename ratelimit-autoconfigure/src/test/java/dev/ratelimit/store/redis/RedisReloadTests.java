package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.UUID;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
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
 * unchanged limit keeps its state.
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

	private static RedisBucketStore store() {
		return TestStores.redis(redis.template(), TIMEOUT,
				TestStores.guard("redis", FailureMode.DENY, 5, Duration.ofSeconds(1)));
	}

	private static BucketId id() {
		return new BucketId("reload", "free", UUID.randomUUID().toString());
	}

	private static Verdict acquire(BucketStore store, BucketId id, Tier tier, long cost) {
		return store.acquire(id, tier, cost).block(TIMEOUT.multipliedBy(2));
	}

}
