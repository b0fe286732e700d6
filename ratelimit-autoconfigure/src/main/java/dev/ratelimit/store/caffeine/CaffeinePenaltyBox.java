package dev.ratelimit.store.caffeine;

import dev.ratelimit.algorithm.Block;
import dev.ratelimit.algorithm.Penalty;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.support.MonotonicClock;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The Caffeine store deciding under one policy's {@link Penalty}: a block in force, in
 * the store's {@link PenaltyRecords}, refuses a request before its bucket is touched; a
 * request its limits refuse is recorded as a breach. Both on this node's clock, the
 * store's. The look-up and the decision are two steps: a request decided while another
 * one's breach starts a block is decided as if it came just before, and a breach that
 * finds a block just started by another decision escalates nothing, its request refused
 * as blocked.
 */
final class CaffeinePenaltyBox implements BucketDecider {

	private final CaffeineBucketStore store;

	private final PenaltyRecords records;

	private final MonotonicClock clock;

	private final Penalty penalty;

	CaffeinePenaltyBox(CaffeineBucketStore store, PenaltyRecords records, MonotonicClock clock, Penalty penalty) {
		this.store = store;
		this.records = records;
		this.clock = clock;
		this.penalty = penalty;
	}

	@Override
	public String name() {
		return this.store.name();
	}

	@Override
	public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
		return Mono.just(acquireNow(id, tier, cost));
	}

	@Override
	public Verdict acquireNow(BucketId id, Tier tier, long cost) {
		long now = this.clock.nanoTime();
		Verdict blocked = blocked(id, now);
		return (blocked != null) ? blocked : breached(id, this.store.acquireNow(id, tier, cost), now);
	}

	@Override
	public Mono<Verdict> check(BucketId id, Tier tier, long cost) {
		return Mono.just(checkNow(id, tier, cost));
	}

	@Override
	public Verdict checkNow(BucketId id, Tier tier, long cost) {
		long now = this.clock.nanoTime();
		Verdict blocked = blocked(id, now);
		return (blocked != null) ? blocked : breached(id, this.store.checkNow(id, tier, cost), now);
	}

	@Override
	public Mono<Verdict> settle(BucketId id, Tier tier, Settlement settlement) {
		return this.store.settle(id, tier, settlement);
	}

	/**
	 * The refusal of a request while its bucket is blocked, its limits not asked;
	 * {@code null} when it is not blocked.
	 */
	private @Nullable Verdict blocked(BucketId id, long now) {
		Block block = this.records.blocking(id, now);
		return (block != null) ? Verdict.blocked(block, block.remainingNanos(now)) : null;
	}

	/**
	 * The verdict, and, when the limits refused the request, the block its breach
	 * starts.
	 */
	private Verdict breached(BucketId id, Verdict verdict, long now) {
		if (verdict.allowed() || verdict.fallback()) {
			return verdict;
		}
		PenaltyRecords.Breach breach = this.records.breach(id, this.penalty, now);
		Block block = breach.block();
		return breach.started() ? verdict.startingBlock(block, block.remainingNanos(now))
				: Verdict.blocked(block, block.remainingNanos(now));
	}

}
