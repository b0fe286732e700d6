package dev.ratelimit.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.LongAdder;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;

import dev.ratelimit.algorithm.Bucket;
import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.MonotonicClock;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Buckets in this node's memory, in one Caffeine cache bounded by a maximum number of
 * keys. A bucket expires once it has been idle for its tier's idle timeout, when it
 * would be as good as new anyway, so memory stays flat however many clients come and
 * go. Each decision holds that bucket's own monitor: there is no global lock.
 * <p>
 * When the cache is full, evicting a bucket while a request is being judged against it
 * lets the next request start a fresh one: under that pressure a client may get a new
 * quota, never a crash.
 */
public final class CaffeineBucketStore implements BucketStore {

	private final MonotonicClock clock;

	private final long maximumKeys;

	private final Cache<BucketId, LiveBucket> cache;

	/**
	 * Live buckets per policy id, counted as buckets are created and removed, so that
	 * a count (a metrics gauge) never walks a million keys.
	 */
	private final Map<String, LongAdder> bucketCounts = new ConcurrentHashMap<>();

	/**
	 * A store reading time from {@code clock}, also used by the cache to expire idle
	 * buckets.
	 * @param clock the clock of every decision
	 * @param maximumKeys the most buckets held at once
	 */
	public CaffeineBucketStore(MonotonicClock clock, long maximumKeys) {
		this(clock, maximumKeys, ForkJoinPool.commonPool());
	}

	/**
	 * A store whose cache maintenance (expiry, eviction, removal notifications) runs
	 * on {@code maintenanceExecutor}.
	 */
	CaffeineBucketStore(MonotonicClock clock, long maximumKeys, Executor maintenanceExecutor) {
		if (maximumKeys <= 0) {
			throw new IllegalArgumentException("maximum-keys must be positive but was " + maximumKeys);
		}
		this.clock = clock;
		this.maximumKeys = maximumKeys;
		this.cache = Caffeine.newBuilder()
			.ticker(clock::nanoTime)
			.executor(maintenanceExecutor)
			.maximumSize(maximumKeys)
			.expireAfter(Expiry.accessing((BucketId id, LiveBucket live) -> live.idleTimeout))
			.removalListener(this::removed)
			.build();
	}

	@Override
	public String name() {
		return StoreType.CAFFEINE.storeName();
	}

	@Override
	public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
		LiveBucket live = this.cache.getIfPresent(id);
		if (live == null) {
			live = this.cache.get(id, (newId) -> create(newId, tier));
		}
		Verdict verdict;
		synchronized (live) {
			// Read inside the monitor so that each bucket sees time move forward.
			verdict = live.bucket.tryAcquire(this.clock.nanoTime(), cost);
		}
		return Mono.just(verdict);
	}

	@Override
	public Flux<BucketSnapshot> buckets(RateLimitPolicy policy) {
		// The map view iterates weakly consistently: no lock, no copy, and expired
		// buckets are skipped.
		return Flux.fromStream(() -> this.cache.asMap()
			.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().policy().equals(policy.id()))
			.map((entry) -> snapshot(entry.getKey(), entry.getValue())));
	}

	@Override
	public Flux<BucketSnapshot> bucket(RateLimitPolicy policy, String key) {
		return Flux.defer(() -> {
			List<BucketSnapshot> snapshots = new ArrayList<>();
			for (BucketId id : ids(policy, key)) {
				// Quietly: looking at a bucket must not keep it alive.
				LiveBucket live = this.cache.policy().getIfPresentQuietly(id);
				if (live != null) {
					snapshots.add(snapshot(id, live));
				}
			}
			return Flux.fromIterable(snapshots);
		});
	}

	@Override
	public Mono<Boolean> reset(RateLimitPolicy policy, String key) {
		return Mono.fromSupplier(() -> {
			boolean removed = false;
			for (BucketId id : ids(policy, key)) {
				removed |= this.cache.asMap().remove(id) != null;
			}
			return removed;
		});
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Counted without walking the cache. A bucket idle past its timeout is no longer
	 * served but still counted until Caffeine's timer wheel sweeps it, about a second
	 * later.
	 */
	@Override
	public Mono<Long> bucketCount(RateLimitPolicy policy) {
		return Mono.fromSupplier(() -> {
			// Run due maintenance first, so that swept buckets are not counted.
			this.cache.cleanUp();
			LongAdder count = this.bucketCounts.get(policy.id());
			return (count != null) ? count.sum() : 0L;
		});
	}

	@Override
	public StoreHealth health() {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("store", name());
		details.put("buckets", this.cache.estimatedSize());
		details.put("maximumKeys", this.maximumKeys);
		return new StoreHealth(true, details);
	}

	private LiveBucket create(BucketId id, Tier tier) {
		this.bucketCounts.computeIfAbsent(id.policy(), (policy) -> new LongAdder()).increment();
		return new LiveBucket(tier, new Bucket(tier.limits(), this.clock.nanoTime()));
	}

	private void removed(BucketId id, LiveBucket live, RemovalCause cause) {
		if (id != null) {
			this.bucketCounts.get(id.policy()).decrement();
		}
	}

	private BucketSnapshot snapshot(BucketId id, LiveBucket live) {
		synchronized (live) {
			long now = this.clock.nanoTime();
			Bucket bucket = live.bucket;
			List<LimitSnapshot> limits = new ArrayList<>(bucket.limits().size());
			for (int i = 0; i < bucket.limits().size(); i++) {
				Decision decision = bucket.peek(i, now);
				limits.add(new LimitSnapshot(bucket.limits().get(i).algorithm().configName(), decision.limit(),
						decision.remaining(), decision.resetSeconds(), bucket.describe(i, now)));
			}
			return new BucketSnapshot(id, bucket.requests(), List.copyOf(limits));
		}
	}

	/**
	 * The buckets a raw key may have in a policy: one per tier it may be judged under.
	 */
	private static Set<BucketId> ids(RateLimitPolicy policy, String key) {
		Set<BucketId> ids = new LinkedHashSet<>();
		for (Tier tier : policy.tiers().values()) {
			ids.add(new BucketId(policy.id(), tier.name(), key));
		}
		ids.add(new BucketId(policy.id(), policy.defaultTier().name(), key));
		return ids;
	}

	/**
	 * A client's bucket and how long it may stay idle; its monitor guards the bucket.
	 */
	private static final class LiveBucket {

		private final Bucket bucket;

		private final Duration idleTimeout;

		LiveBucket(Tier tier, Bucket bucket) {
			this.bucket = bucket;
			this.idleTimeout = tier.idleTimeout();
		}

	}

}
