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
	 * Forget every bucket of one raw key in a policy, and its penalty blocks and record,
	 * so that its next request is judged as new.
	 * @return whether there was such a bucket, block or record
	 */
	Mono<Boolean> reset(RateLimitPolicy policy, String key);

	/**
	 * The penalty blocks in force in a policy, walked as {@link #buckets} are; none in a
	 * store that keeps no blocks.
	 */
	default Flux<BlockSnapshot> blocks(RateLimitPolicy policy) {
		return Flux.empty();
	}

	/**
	 * The penalty blocks in force of one raw key in a policy: one per tier it breached
	 * under, none when it is not blocked.
	 */
	default Flux<BlockSnapshot> blocks(RateLimitPolicy policy, String key) {
		return Flux.empty();
	}

	/**
	 * Lift the penalty blocks of one raw key in a policy and forget its record, so that
	 * its next request is judged by its limits and its next breach serves the first
	 * step; its buckets stay as they are. {@link #reset} lifts them too.
	 * @return whether the key had a block or a record
	 */
	default Mono<Boolean> lift(RateLimitPolicy policy, String key) {
		return Mono.just(false);
	}

	/**
	 * How many live buckets a policy has (may be approximate for large stores).
	 */
	Mono<Long> bucketCount(RateLimitPolicy policy);

	/**
	 * The store's health, for the health contributor.
	 */
	StoreHealth health();

}
