package dev.ratelimit.store;

import dev.ratelimit.algorithm.Penalty;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.support.MonotonicClock;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The request path's port to a store: judges a request against its bucket, atomically.
 * The {@code RateLimit} filter needs nothing else of a store; what operators see of it
 * is {@link BucketInspector}'s. A whole {@link BucketStore} is both, under one
 * {@link #name()}.
 */
public interface BucketDecider {

	/**
	 * The store's name, as policies choose it in {@code store}: {@code caffeine},
	 * {@code redis} or {@code hybrid}.
	 */
	String name();

	/**
	 * The clock this store's decisions are timed by, as this node reads it: what the
	 * rate limit headers tell the window of a limit counted in calendar periods by (the
	 * length of the period current now). A store that decides by Redis's own clock
	 * answers this node's wall clock, which Redis's is near; only at a period's boundary
	 * may the two disagree on which period is current, for the clocks' difference.
	 */
	default MonotonicClock clock() {
		return MonotonicClock.SYSTEM;
	}

	/**
	 * Judge a request of {@code cost} units against every limit of {@code tier} in the
	 * bucket {@code id}, creating the bucket if it is new. All limits admit or none
	 * consumes; concurrent calls on one bucket never admit more than its limits allow.
	 * A store whose backend fails answers with its failure mode (a verdict marked
	 * {@link Verdict#fallback()}) rather than an error.
	 */
	Mono<Verdict> acquire(BucketId id, Tier tier, long cost);

	/**
	 * {@link #acquire} answered at once, for a store that decides in this node's memory:
	 * the caller gets the verdict without a {@code Mono} around it.
	 * @return the verdict, or {@code null} when this store cannot decide without waiting
	 * (on a remote store), in which case nothing was consumed and {@link #acquire}
	 * decides
	 */
	default @Nullable Verdict acquireNow(BucketId id, Tier tier, long cost) {
		return null;
	}

	/**
	 * Judge a request of {@code cost} units as {@link #acquire} does, taking only the
	 * slots of the limits that {@linkplain dev.ratelimit.algorithm.Limit#countsInFlight()
	 * count requests in flight}: the other limits check that they have room for
	 * {@code cost} and take nothing, for a policy that takes its cost after the response
	 * ({@code count-responses}), by {@link #settle}.
	 */
	default Mono<Verdict> check(BucketId id, Tier tier, long cost) {
		return Mono.error(new UnsupportedOperationException("Rate limit store '" + name()
				+ "' cannot judge a request whose cost is taken after its response"));
	}

	/**
	 * {@link #check} answered at once, as {@link #acquireNow} is.
	 * @return the verdict, or {@code null} when this store cannot decide without waiting
	 */
	default @Nullable Verdict checkNow(BucketId id, Tier tier, long cost) {
		return null;
	}

	/**
	 * Settle, once its exchange has shown it, what a request {@link #acquire admitted} or
	 * {@link #check checked} changes in the bucket {@code id} of {@code tier}: every limit
	 * applies the {@link Settlement} in one atomic step. Not a decision: nothing is
	 * judged, and nothing is created for a bucket the store no longer has (its state is
	 * as good as new). Called at most once with {@link Settlement#ended()} per admitted
	 * request; never retried, so that nothing is charged twice.
	 * @return the bucket's limits after settling, as a peek describes them (remaining and
	 * reset), for headers written after it; fails when the store cannot settle. A store
	 * that cannot settle refuses, at start-up, the policies that need it
	 */
	default Mono<Verdict> settle(BucketId id, Tier tier, Settlement settlement) {
		return Mono.error(new UnsupportedOperationException("Rate limit store '" + name()
				+ "' cannot settle a request after its response"));
	}

	/**
	 * This store deciding under a penalty box: each {@link #acquire} or {@link #check}
	 * first looks for a block of its bucket, and refuses the request at once while one
	 * is in force ({@link Verdict#blocked(dev.ratelimit.algorithm.Block, long)}),
	 * consuming nothing; a request the limits refuse (not a failure mode's verdict)
	 * starts the block {@link Penalty#breach} gives ({@link Verdict#startingBlock}),
	 * atomically with the decision that refused it. Blocks are kept per bucket (policy,
	 * tier and key), where this store keeps the bucket: in this node's memory, or for
	 * the whole fleet. Settlements go to this store as they are.
	 * @return the deciding store, or {@code null} when this store keeps no blocks, which
	 * refuses, at start-up, the policies that need it
	 */
	default @Nullable BucketDecider penalized(Penalty penalty) {
		return null;
	}

}
