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

	/**
	 * Give back {@code cost} units that a request admitted {@code heldNanos} ago took in
	 * the bucket {@code id} of {@code tier}, because it was held and never forwarded (its
	 * client went away): every limit takes them off what still counts them, so that
	 * later requests are admitted sooner. Called at most once per admitted request, only
	 * for a verdict with a {@linkplain Verdict#delayNanos() delay}.
	 * @return completes once given back, or fails when the store cannot; a store that
	 * cannot give back does not shape, and the policies refuse shaping on it at start-up
	 */
	default Mono<Void> giveBack(BucketId id, Tier tier, long cost, long heldNanos) {
		return Mono.error(new UnsupportedOperationException("Rate limit store '" + name()
				+ "' cannot give back the place of a held request"));
	}

}
