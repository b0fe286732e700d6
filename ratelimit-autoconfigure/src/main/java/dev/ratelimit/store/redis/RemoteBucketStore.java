package dev.ratelimit.store.redis;

import java.time.Duration;

import dev.ratelimit.algorithm.MonotonicClock;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.BucketStore;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What the Redis-backed stores share: the bucket script, the guard deciding while
 * Redis fails, and a read side that goes straight to Redis, whatever decides requests.
 */
abstract class RemoteBucketStore implements BucketStore {

	final BucketScript script;

	private final BucketReader reader;

	final Duration timeout;

	final RemoteFailureGuard guard;

	/**
	 * Bound of each step of the read side (actuator listings, reads, resets), which
	 * answers with an error rather than a fallback when Redis fails.
	 */
	final Duration readTimeout;

	final MonotonicClock clock;

	RemoteBucketStore(BucketScript script, Duration timeout, RemoteFailureGuard guard, MonotonicClock clock) {
		this.script = script;
		this.reader = new BucketReader(script);
		this.timeout = timeout;
		this.guard = guard;
		this.readTimeout = BucketReader.readTimeout(timeout);
		this.clock = clock;
	}

	/**
	 * Opens the connection before the first request needs it, waiting at most the read
	 * timeout: a request that finds no connection is decided by the failure mode
	 * unless one opens within the decision timeout, and connecting takes longer than
	 * that on a slow network. A Redis that cannot be reached delays start-up by that
	 * wait at most, never stops it.
	 */
	void connect() {
		this.script.ping().timeout(this.readTimeout).onErrorResume((failure) -> {
			this.guard.unreachableAtStartUp(failure);
			return Mono.empty();
		}).block();
	}

	/**
	 * Starts the guard's background probe: a PING answered within the decision
	 * timeout closes the breaker, so that a store with no traffic is healthy again
	 * once Redis answers as fast as a decision needs.
	 */
	void startProbing() {
		this.guard.startProbing(Mono.defer(() -> this.script.ping().timeout(this.timeout)));
	}

	@Override
	public Flux<BucketSnapshot> buckets(RateLimitPolicy policy) {
		return this.reader.buckets(policy).timeout(this.readTimeout);
	}

	@Override
	public Flux<BucketSnapshot> bucket(RateLimitPolicy policy, String key) {
		return this.reader.bucket(policy, key).timeout(this.readTimeout);
	}

	@Override
	public Mono<Boolean> reset(RateLimitPolicy policy, String key) {
		return this.reader.reset(policy, key).timeout(this.readTimeout);
	}

	@Override
	public Mono<Long> bucketCount(RateLimitPolicy policy) {
		return this.reader.count(policy).timeout(this.readTimeout);
	}

}
