package dev.ratelimit.web;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import reactor.core.publisher.Mono;

/**
 * The Caffeine store, recording what the request path asks of it: how many acquires and
 * checks, and every settlement, for the tests of exactly once. It decides nothing of its
 * own: every call goes to {@link #caffeine}.
 */
final class RecordingStore implements BucketDecider {

	final CaffeineBucketStore caffeine;

	final List<Settlement> settlements = new CopyOnWriteArrayList<>();

	final AtomicInteger acquires = new AtomicInteger();

	final AtomicInteger checks = new AtomicInteger();

	RecordingStore(CaffeineBucketStore caffeine) {
		this.caffeine = caffeine;
	}

	@Override
	public String name() {
		return this.caffeine.name();
	}

	@Override
	public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
		return Mono.fromSupplier(() -> acquireNow(id, tier, cost));
	}

	@Override
	public Verdict acquireNow(BucketId id, Tier tier, long cost) {
		this.acquires.incrementAndGet();
		return this.caffeine.acquireNow(id, tier, cost);
	}

	@Override
	public Mono<Verdict> check(BucketId id, Tier tier, long cost) {
		return Mono.fromSupplier(() -> checkNow(id, tier, cost));
	}

	@Override
	public Verdict checkNow(BucketId id, Tier tier, long cost) {
		this.checks.incrementAndGet();
		return this.caffeine.checkNow(id, tier, cost);
	}

	@Override
	public Mono<Verdict> settle(BucketId id, Tier tier, Settlement settlement) {
		return Mono.defer(() -> {
			this.settlements.add(settlement);
			return this.caffeine.settle(id, tier, settlement);
		});
	}

}
