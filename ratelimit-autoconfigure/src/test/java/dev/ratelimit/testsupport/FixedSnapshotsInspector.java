package dev.ratelimit.testsupport;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketInspector;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.LimitSnapshot;
import dev.ratelimit.store.StoreHealth;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A {@link BucketInspector} test double holding fixed snapshots; it counts how many
 * buckets listings pull from it. It decides nothing: the actuator never asks it to.
 */
public class FixedSnapshotsInspector implements BucketInspector {

	private final String name;

	private final List<BucketSnapshot> buckets = new CopyOnWriteArrayList<>();

	private final AtomicInteger emitted = new AtomicInteger();

	private volatile StoreHealth health;

	public FixedSnapshotsInspector(String name) {
		this.name = name;
		this.health = new StoreHealth(true, Map.of("buckets", 0L));
	}

	public FixedSnapshotsInspector add(String policy, String tier, String key, long requests, LimitSnapshot... limits) {
		this.buckets.add(new BucketSnapshot(new BucketId(policy, tier, key), requests, List.of(limits)));
		return this;
	}

	public static LimitSnapshot fixedWindow(long limit, long remaining) {
		return new LimitSnapshot("fixed-window", limit, remaining, 42, Map.of("count", limit - remaining));
	}

	public void setHealth(StoreHealth health) {
		this.health = health;
	}

	public int emitted() {
		return this.emitted.get();
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public Flux<BucketSnapshot> buckets(RateLimitPolicy policy) {
		return Flux.fromIterable(this.buckets)
			.filter((bucket) -> bucket.id().policy().equals(policy.id()))
			.doOnNext((bucket) -> this.emitted.incrementAndGet());
	}

	@Override
	public Flux<BucketSnapshot> bucket(RateLimitPolicy policy, String key) {
		return buckets(policy).filter((bucket) -> bucket.id().key().equals(key));
	}

	@Override
	public Mono<Boolean> reset(RateLimitPolicy policy, String key) {
		return Mono.fromSupplier(() -> this.buckets
			.removeIf((bucket) -> bucket.id().policy().equals(policy.id()) && bucket.id().key().equals(key)));
	}

	@Override
	public Mono<Long> bucketCount(RateLimitPolicy policy) {
		return Mono.fromSupplier(
				() -> this.buckets.stream().filter((bucket) -> bucket.id().policy().equals(policy.id())).count());
	}

	@Override
	public StoreHealth health() {
		return this.health;
	}

}
