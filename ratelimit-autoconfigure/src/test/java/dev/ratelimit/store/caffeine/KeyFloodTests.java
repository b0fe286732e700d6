package dev.ratelimit.store.caffeine;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.support.MonotonicClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client spraying millions of made-up keys (API keys, addresses) at a store bounded
 * at a million buckets, while one abusive key keeps hammering: memory stops growing at
 * the bound, and the flood never evicts the hot key's bucket to give it a fresh quota.
 * Caffeine admits a new key only over a victim used less often (W-TinyLFU), and a key
 * seen once never is.
 */
class KeyFloodTests {

	private static final int MAXIMUM_KEYS = 1_000_000;

	private static final int FLOOD_KEYS = 5_000_000;

	/**
	 * The hot key asks once per this many flood keys: 100,000 requests in all.
	 */
	private static final int HOT_EVERY = 50;

	private static final long HOT_LIMIT = 1_000;

	private static final Tier TIER = new Tier("anonymous", List.of(new FixedWindow(HOT_LIMIT, Duration.ofDays(1))));

	private static final RateLimitPolicy POLICY = new RateLimitPolicy("flood", new KeySource.Header("X-Client"),
			false, 1, StoreType.CAFFEINE, Map.of(TIER.name(), TIER), TIER);

	@Test
	void fiveMillionKeysNeitherGrowTheStorePastItsBoundNorEvictTheHotKey() {
		// Time stands still: nothing expires, so only the bound limits the store.
		MonotonicClock clock = () -> 42_000_000_000L;
		// Maintenance (eviction) on the calling thread: the bound holds after every call.
		CaffeineBucketStore store = new CaffeineBucketStore(clock, MAXIMUM_KEYS, Runnable::run);
		BucketId hot = new BucketId(POLICY.id(), TIER.name(), "abuser");
		SplittableRandom random = new SplittableRandom(7);
		long hotRequests = 0;
		long hotAdmitted = 0;
		long heapAtBound = 0;
		for (int i = 1; i <= FLOOD_KEYS; i++) {
			String key = Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
			store.acquire(new BucketId(POLICY.id(), TIER.name(), key), TIER, 1).block();
			if (i % HOT_EVERY == 0) {
				Verdict verdict = store.acquire(hot, TIER, 1).block();
				hotRequests++;
				hotAdmitted += verdict.allowed() ? 1 : 0;
			}
			if (i == 2 * MAXIMUM_KEYS) {
				heapAtBound = usedHeapAfterGc();
			}
		}
		long heapAtEnd = usedHeapAfterGc();
		assertThat(store.bucketCount(POLICY).block()).isLessThanOrEqualTo(MAXIMUM_KEYS);
		assertThat(hotAdmitted).as("the hot key admitted its limit, once").isEqualTo(HOT_LIMIT);
		List<BucketSnapshot> hotBucket = store.bucket(POLICY, "abuser").collectList().block();
		assertThat(hotBucket).hasSize(1);
		assertThat(hotBucket.get(0).requests()).as("every hot request judged by the one bucket, never a fresh one")
			.isEqualTo(hotRequests);
		assertThat(hotBucket.get(0).limits().get(0).remaining()).isZero();
		// Three million more keys once the store was full: the heap did not grow with them.
		assertThat(heapAtEnd).as("heap after %d keys vs %d bytes at %d keys", FLOOD_KEYS, heapAtBound,
				2 * MAXIMUM_KEYS)
			.isLessThan(heapAtBound + heapAtBound / 5);
	}

	private static long usedHeapAfterGc() {
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		long used = Long.MAX_VALUE;
		// A full collection may leave floating garbage: the least of a few is the live set.
		for (int i = 0; i < 3; i++) {
			System.gc();
			used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
		}
		return used;
	}

}
