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
import org.jspecify.annotations.Nullable;
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

	/**
	 * When set, decisions are not known at once: each is applied when asked for, as a
	 * remote store applies a command it was sent, and answered once this completes.
	 */
	@Nullable Mono<Void> answerWhen;

	RecordingStore(CaffeineBucketStore caffeine) {
		this.caffeine = caffeine;
	}

	@Override
	public String name() {
		return this.caffeine.name();
	}

	@Override
	public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
		return answered(Mono.fromSupplier(() -> {
			this.acquires.incrementAndGet();
			return this.caffeine.acquireNow(id, tier, cost);
		}));
	}

	@Override
	public @Nullable Verdict acquireNow(BucketId id, Tier tier, long cost) {
		if (this.answerWhen != null) {
			return null;
		}
		this.acquires.incrementAndGet();
		return this.caffeine.acquireNow(id, tier, cost);
	}

	@Override
	public Mono<Verdict> check(BucketId id, Tier tier, long cost) {
		return answered(Mono.fromSupplier(() -> {
			this.checks.incrementAndGet();
			return this.caffeine.checkNow(id, tier, cost);
		}));
	}

	@Override
	public @Nullable Verdict checkNow(BucketId id, Tier tier, long cost) {
		if (this.answerWhen != null) {
			return null;
		}
		this.checks.incrementAndGet();
		return this.caffeine.checkNow(id, tier, cost);
	}

	private Mono<Verdict> answered(Mono<Verdict> decision) {
		Mono<Void> answer = this.answerWhen;
		return (answer != null) ? decision.delayUntil((verdict) -> answer) : decision;
	}

	@Override
	public Mono<Verdict> settle(BucketId id, Tier tier, Settlement settlement) {
		return Mono.defer(() -> {
			this.settlements.add(settlement);
			return this.caffeine.settle(id, tier, settlement);
		});
	}

}
