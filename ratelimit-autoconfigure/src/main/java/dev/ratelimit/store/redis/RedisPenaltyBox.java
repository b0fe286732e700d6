package dev.ratelimit.store.redis;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.Settlement;
import reactor.core.publisher.Mono;

/**
 * The Redis store deciding under one policy's penalty box: each decision is the
 * penalized form of its script ({@link ScriptProtocol}), which refuses a blocked client
 * before its bucket is touched and starts a block on a breach, in the same atomic call.
 */
final class RedisPenaltyBox implements BucketDecider {

	private final RedisBucketStore store;

	private final RedisPenalty penalty;

	RedisPenaltyBox(RedisBucketStore store, RedisPenalty penalty) {
		this.store = store;
		this.penalty = penalty;
	}

	@Override
	public String name() {
		return this.store.name();
	}

	@Override
	public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
		return this.store.acquire(id, tier, cost, this.penalty);
	}

	@Override
	public Mono<Verdict> check(BucketId id, Tier tier, long cost) {
		return this.store.check(id, tier, cost, this.penalty);
	}

	@Override
	public Mono<Verdict> settle(BucketId id, Tier tier, Settlement settlement) {
		return this.store.settle(id, tier, settlement);
	}

}
