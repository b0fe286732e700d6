package dev.ratelimit.store.caffeine;

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

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Penalty;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BlockSnapshot;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.BucketStore;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.store.LimitSnapshot;
import dev.ratelimit.store.StoreHealth;
import dev.ratelimit.support.MonotonicClock;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Buckets in this node's memory, in one Caffeine cache bounded by a maximum number of
 * keys. A bucket expires once it has been idle for its tier's idle timeout, when it
 * would be as good as new anyway, so memory stays flat however many clients come and
 * go; a bucket in debt, only once it would have paid it back; a bucket holding requests
 * in flight, only once they have ended. Each decision holds the lock {@link BucketLocks}
 * picks for its bucket: there is no global lock.
 * <p>
 * A bucket is one object holding its state and its identity, the cache's key and value
 * at once (see {@link CaffeineBucket}); what the buckets of a tier share (its limits) is
 * held once per tier, in its {@link BucketGroup}. When the cache is full,
 * evicting a bucket while a request is being judged against it lets the next request
 * start a fresh one: under that pressure a client may get a new quota, never a crash.
 * <p>
 * Both ports live here (the decision, and the read side the actuator walks) along with
 * taking buckets over across a live reload: all three need the cache's layout, which
 * stays private to this class. The penalty blocks of the policies that have a penalty box
 * live beside the buckets, in {@link PenaltyRecords}.
 */
public final class CaffeineBucketStore implements BucketStore {

	/**
	 * The store's name, as in {@code ratelimit.store}: worked out once, as a name is built
	 * from its enum constant on every call.
	 */
	private static final String NAME = StoreType.CAFFEINE.storeName();

	private final MonotonicClock clock;


	private final long maximumKeys;

	/**
	 * Buckets keyed by themselves: looked up by {@link BucketId}, which equals them.
	 */
	private final Cache<Object, CaffeineBucket> cache;

	/**
	 * Bucket groups by policy id, then tier name, created with their first bucket.
	 */
	private final Map<String, Map<String, BucketGroup>> groups = new ConcurrentHashMap<>();

	/**
	 * Live buckets per policy id, counted as buckets are created and removed, so that
	 * a count (a metrics gauge) never walks a million keys.
	 */
	private final Map<String, LongAdder> bucketCounts = new ConcurrentHashMap<>();

	/**
	 * The penalty records of the policies that block their clients on breaches.
	 */
	private final PenaltyRecords penalties;

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
	 * A store whose cache maintenance (expiry, eviction, and the counts they update) runs
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
			.expireAfter(new IdleTimeout())
			// Called on the evicting thread: a removal listener would instead be handed to the
			// executor as one task per evicted bucket, which a full cache pays on every new key.
			.evictionListener(this::evicted)
			.build();
		this.penalties = new PenaltyRecords(clock, maximumKeys, maintenanceExecutor);
	}

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public MonotonicClock clock() {
		return this.clock;
	}

	@Override
	public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
		return Mono.just(acquireNow(id, tier, cost));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Never {@code null}: this store always decides at once. Kept small on purpose:
	 * creating a bucket and taking one over after a reload happen in
	 * {@link #bucketOf}, and the lock is one of {@link BucketLocks}, so that the JIT
	 * compiles this method under its inlining limit (C2's {@code InlineSmallCode}) and
	 * inlines it into its caller, where the verdict, only read, stays off the heap.
	 */
	@Override
	public Verdict acquireNow(BucketId id, Tier tier, long cost) {
		// Read once, before the bucket's lock, not under it (a new bucket starts at this
		// reading too): reading the clock costs a good part of a whole decision
		// (docs/benchmarks.md), and every thread waiting for the bucket would wait for it
		// too. A thread that waited may bring a reading older than the decision before it;
		// every algorithm takes such a late reading as no time having passed, so it never
		// finds more room than that decision left.
		long now = this.clock.nanoTime();
		CaffeineBucket bucket = this.cache.getIfPresent(id);
		while (true) {
			if (bucket == null || bucket.group.tier != tier) {
				bucket = bucketOf(id, tier, bucket, now);
			}
			int lock = BucketLocks.lock(bucket);
			try {
				if (!bucket.retired()) {
					Verdict verdict = bucket.tryAcquire(now, cost);
					if (bucket.group.countsInFlight) {
						reworkExpiry(bucket);
					}
					return verdict;
				}
			}
			finally {
				BucketLocks.unlock(lock);
			}
			bucket = this.cache.getIfPresent(id);
		}
	}

	@Override
	public Mono<Verdict> check(BucketId id, Tier tier, long cost) {
		return Mono.just(checkNow(id, tier, cost));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Never {@code null}: this store always decides at once. The same loop as
	 * {@link #acquireNow}'s, which is not shared so that that one stays as small as it is
	 * compiled.
	 */
	@Override
	public Verdict checkNow(BucketId id, Tier tier, long cost) {
		long now = this.clock.nanoTime();
		CaffeineBucket bucket = this.cache.getIfPresent(id);
		while (true) {
			if (bucket == null || bucket.group.tier != tier) {
				bucket = bucketOf(id, tier, bucket, now);
			}
			int lock = BucketLocks.lock(bucket);
			try {
				if (!bucket.retired()) {
					Verdict verdict = bucket.check(now, cost);
					if (bucket.group.countsInFlight) {
						reworkExpiry(bucket);
					}
					return verdict;
				}
			}
			finally {
				BucketLocks.unlock(lock);
			}
			bucket = this.cache.getIfPresent(id);
		}
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Settled in the bucket now serving {@code id}: one that took over the bucket after a
	 * reload carries its state. A bucket gone (expired, reset, or evicted for
	 * maximum-keys) holds nothing to settle, and is not created again: the {@code Mono}
	 * completes empty, its limits being as good as new. {@link Settlement#fallback()}
	 * makes no difference: this store has no failure mode.
	 */
	@Override
	public Mono<Verdict> settle(BucketId id, Tier tier, Settlement settlement) {
		return Mono.fromSupplier(() -> settleNow(id, settlement));
	}

	private @Nullable Verdict settleNow(BucketId id, Settlement settlement) {
		long now = this.clock.nanoTime();
		CaffeineBucket bucket = this.cache.getIfPresent(id);
		while (bucket != null) {
			int lock = BucketLocks.lock(bucket);
			try {
				if (!bucket.retired()) {
					bucket.settle(now, settlement.units(), now - settlement.admittedNanosAgo(), settlement.ended());
					// A charge may have put it in debt, or a release freed its last slot.
					reworkExpiry(bucket);
					return bucket.peek(now);
				}
			}
			finally {
				BucketLocks.unlock(lock);
			}
			bucket = this.cache.getIfPresent(id);
		}
		return null;
	}

	/**
	 * Have the cache work out again, under the lock of {@code bucket}, how long to keep it
	 * ({@link IdleTimeout}): for as long as it holds slots, since each will come back to
	 * it to release its slot, else until it is as good as new, a debt paid back. Under the
	 * lock, so that the last word is that of the state as it is now: a lookup on another
	 * thread, without it, may have worked it out from the state before. Done after every
	 * decision of a tier that counts requests in flight, whose every lookup is then
	 * followed by this, and after every settlement. A decision of another tier needs
	 * none: its lookup worked the expiry out from the state before it, and no admission
	 * leaves a bucket longer to be as good as new than that. A lookup of such a tier
	 * racing a settlement may still have the last word with the state before it (rarely:
	 * Caffeine sets an expiry only if unchanged since it read it), until the bucket's next
	 * use. Off the decision's hot path, which only tests the group's flag.
	 */
	private void reworkExpiry(CaffeineBucket bucket) {
		this.cache.getIfPresent(bucket);
	}

	/**
	 * The bucket of {@code tier} for {@code id}, off the decision's hot path: a new one
	 * first seen at {@code nowNanos} when {@code found} is {@code null}, else one taking
	 * over {@code found}.
	 */
	private CaffeineBucket bucketOf(BucketId id, Tier tier, @Nullable CaffeineBucket found, long nowNanos) {
		return (found != null) ? takeOver(found, tier) : create(id, tier, nowNanos);
	}

	/**
	 * A bucket of {@code tier} taking over {@code current}, a bucket judged under another
	 * instance of the tier, the policies having been reloaded since: it carries the state
	 * of {@code current} (see {@link dev.ratelimit.algorithm.Bucket#takeOver}) and
	 * replaces it in the cache. Each request is judged under its own tier only; a request
	 * still in flight under the policies before a reload moves the bucket back to its
	 * tier, carrying the state the same way. Answers {@code current} itself when another
	 * thread retired it meanwhile, for the caller to look the bucket up again.
	 */
	private CaffeineBucket takeOver(CaffeineBucket current, Tier tier) {
		int lock = BucketLocks.lock(current);
		try {
			if (current.retired()) {
				return current;
			}
			long now = this.clock.nanoTime();
			BucketId id = current.id();
			CaffeineBucket successor = CaffeineBucket.create(group(id, tier), id.key(), now);
			successor.takeOver(current, now);
			// Unless the bucket was evicted or reset meanwhile: then, as for any bucket
			// evicted while judged, the next request starts afresh.
			this.cache.asMap().computeIfPresent(current, (key, value) -> (value == current) ? successor : value);
			return successor;
		}
		finally {
			BucketLocks.unlock(lock);
		}
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Blocks are kept on this node, by its clock, in a cache of their own.
	 */
	@Override
	public BucketDecider penalized(Penalty penalty) {
		return new CaffeinePenaltyBox(this, this.penalties, this.clock, penalty);
	}

	@Override
	public Flux<BucketSnapshot> buckets(RateLimitPolicy policy) {
		// The map view iterates weakly consistently: no lock, no copy, and expired
		// buckets are skipped.
		return Flux.fromStream(() -> this.cache.asMap()
			.values()
			.stream()
			.filter((bucket) -> bucket.group.policy.equals(policy.id()))
			.map(this::snapshot)
			.filter((snapshot) -> snapshot != null));
	}

	@Override
	public Flux<BucketSnapshot> bucket(RateLimitPolicy policy, String key) {
		return Flux.defer(() -> {
			List<BucketSnapshot> snapshots = new ArrayList<>();
			for (BucketId id : ids(policy, key)) {
				// Quietly: looking at a bucket must not keep it alive.
				CaffeineBucket bucket = this.cache.policy().getIfPresentQuietly(id);
				BucketSnapshot snapshot = (bucket != null) ? snapshot(bucket) : null;
				if (snapshot != null) {
					snapshots.add(snapshot);
				}
			}
			return Flux.fromIterable(snapshots);
		});
	}
	@Override
	public Mono<Boolean> reset(RateLimitPolicy policy, String key) {
		return Mono.fromSupplier(() -> {
			boolean removed = false;
			Set<BucketId> ids = ids(policy, key);
			for (BucketId id : ids) {
				CaffeineBucket bucket = this.cache.asMap().remove(id);
				if (bucket != null) {
					bucket.group.policyBuckets.decrement();
					removed = true;
				}
			}
			return this.penalties.forget(ids) || removed;
		});
	}

	@Override
	public Flux<BlockSnapshot> blocks(RateLimitPolicy policy) {
		return Flux.fromStream(() -> this.penalties.blocks(policy.id()));
	}

	@Override
	public Flux<BlockSnapshot> blocks(RateLimitPolicy policy, String key) {
		return Flux.defer(() -> Flux.fromIterable(this.penalties.blocks(ids(policy, key))));
	}

	@Override
	public Mono<Boolean> lift(RateLimitPolicy policy, String key) {
		return Mono.fromSupplier(() -> this.penalties.forget(ids(policy, key)));
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

	/**
	 * The bucket of a client not found in the cache: a new one first seen at
	 * {@code nowNanos}, or the one another thread created meanwhile.
	 */
	private CaffeineBucket create(BucketId id, Tier tier, long nowNanos) {
		CaffeineBucket created = CaffeineBucket.create(group(id, tier), id.key(), nowNanos);
		// Not get(key, mappingFunction), whose compute allocates a function and a
		// remapping per new key (docs/benchmarks.md, section 1).
		CaffeineBucket existing = this.cache.asMap().putIfAbsent(created, created);
		if (existing != null) {
			return existing;
		}
		created.group.policyBuckets.increment();
		return created;
	}

	/**
	 * The group of the buckets of {@code tier}: created with the tier's first bucket, and
	 * again when a request brings another instance of the tier, from reloaded policies.
	 */
	private BucketGroup group(BucketId id, Tier tier) {
		Map<String, BucketGroup> policyGroups = this.groups.computeIfAbsent(id.policy(),
				(policy) -> new ConcurrentHashMap<>());
		BucketGroup known = policyGroups.get(id.tier());
		if (known != null && known.tier == tier) {
			return known;
		}
		return policyGroups.compute(id.tier(), (name, existing) -> (existing != null && existing.tier == tier)
				? existing : new BucketGroup(id.policy(), tier,
						this.bucketCounts.computeIfAbsent(id.policy(), (policy) -> new LongAdder())));
	}

	/**
	 * A bucket expired, was evicted or was collected. Not called for a bucket replaced by
	 * the one that took it over (still one live bucket), nor for a reset, which counts
	 * its own removal.
	 */
	private void evicted(@Nullable Object key, @Nullable CaffeineBucket bucket, RemovalCause cause) {
		if (bucket != null) {
			bucket.group.policyBuckets.decrement();
		}
	}

	/**
	 * The bucket as it stands, or {@code null} when another took it over meanwhile.
	 */
	private BucketSnapshot snapshot(CaffeineBucket bucket) {
		int lock = BucketLocks.lock(bucket);
		try {
			if (bucket.retired()) {
				return null;
			}
			long now = this.clock.nanoTime();
			List<Limit> limits = bucket.limits();
			List<LimitSnapshot> snapshots = new ArrayList<>(limits.size());
			for (int i = 0; i < limits.size(); i++) {
				Decision decision = bucket.peek(i, now);
				snapshots.add(new LimitSnapshot(limits.get(i).algorithm().configName(), decision.limit(),
						decision.remaining(), decision.resetSeconds(), bucket.describe(i, now)));
			}
			return new BucketSnapshot(bucket.id(), bucket.requests(), List.copyOf(snapshots));
		}
		finally {
			BucketLocks.unlock(lock);
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
	 * A bucket expires once idle until it is as good as new
	 * ({@link dev.ratelimit.algorithm.Bucket#idleNanos}): its tier's idle timeout, longer
	 * while a limit is in debt, which idleness must not forgive; and not while it holds
	 * requests in flight: each comes back to release its slot, and a bucket forgotten
	 * meanwhile would lose their count (admitting as many more) and then take the slots
	 * of later requests. Only eviction for maximum-keys still removes such a bucket, which
	 * no limit on memory can avoid: under that pressure its client may have more in flight
	 * than its limit, or its debt forgiven.
	 */
	private static final class IdleTimeout implements Expiry<Object, CaffeineBucket> {

		@Override
		public long expireAfterCreate(Object key, CaffeineBucket bucket, long currentTime) {
			return keptFor(bucket, currentTime);
		}

		@Override
		public long expireAfterUpdate(Object key, CaffeineBucket bucket, long currentTime, long currentDuration) {
			return keptFor(bucket, currentTime);
		}

		@Override
		public long expireAfterRead(Object key, CaffeineBucket bucket, long currentTime, long currentDuration) {
			return keptFor(bucket, currentTime);
		}

		/**
		 * How long to keep {@code bucket} from {@code nowNanos}, a reading of the store's
		 * clock, the cache's ticker.
		 */
		private static long keptFor(CaffeineBucket bucket, long nowNanos) {
			if (bucket.group.countsInFlight && bucket.inFlight() > 0) {
				return Long.MAX_VALUE;
			}
			return ExpiryTolerance.keptFor(bucket.idleNanos(nowNanos));
		}

	}

}
