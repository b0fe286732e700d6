package dev.ratelimit.store;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
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

}
