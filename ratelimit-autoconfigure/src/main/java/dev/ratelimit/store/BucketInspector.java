package dev.ratelimit.store;

import dev.ratelimit.policy.RateLimitPolicy;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The operator's port to a store: its live buckets, one client's reset and the
 * store's health, for the actuator endpoint, metrics and health contributor. Nothing
 * here is on the request path, which {@link BucketDecider} serves.
 */
public interface BucketInspector {

	/**
	 * The store's name, the same as its {@link BucketDecider#name()}.
	 */
	String name();

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
