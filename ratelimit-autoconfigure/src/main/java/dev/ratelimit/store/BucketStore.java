package dev.ratelimit.store;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.Tier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Where bucket state lives, and how a decision over it is made atomic.
 */
public interface BucketStore {

	/**
	 * The store's name: {@code caffeine}, {@code redis} or {@code hybrid}.
	 */
	String name();

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
	default Verdict acquireNow(BucketId id, Tier tier, long cost) {
		return null;
	}

	/**
	 * The live buckets of a policy, walked without locking the store or copying it.
	 */
	Flux<BucketSnapshot> buckets(RateLimitPolicy policy);

	/**
	 * The live buckets of one raw key in a policy: one per tier it was judged under,
	 * none when it has no bucket.
	 */
	Flux<BucketSnapshot> bucket(RateLimitPolicy policy, String key);

	/**
	 * Forget every bucket of one raw key in a policy, so that its next request is judged
	 * as new.
	 * @return whether there was such a bucket
	 */
	Mono<Boolean> reset(RateLimitPolicy policy, String key);

	/**
	 * How many live buckets a policy has (may be approximate for large stores).
	 */
	Mono<Long> bucketCount(RateLimitPolicy policy);

	/**
	 * The store's health, for the health contributor.
	 */
	StoreHealth health();

}
