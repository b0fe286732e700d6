package dev.ratelimit.store.redis;

import java.time.Duration;

import dev.ratelimit.algorithm.MonotonicClock;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.BucketStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What the Redis-backed stores share: the bucket script, the guard deciding while
 * Redis fails, and a read side that goes straight to Redis, whatever decides requests.
 */
abstract class RemoteBucketStore implements BucketStore {

	private static final Log logger = LogFactory.getLog(RemoteBucketStore.class);

	final BucketScript script;

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
		this.timeout = timeout;
		this.guard = guard;
		this.readTimeout = BucketScript.readTimeout(timeout);
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
			if (logger.isWarnEnabled()) {
				logger.warn("Rate limit store '" + name() + "' cannot reach Redis at start-up (" + failure
						+ "); requests are decided by ratelimit.redis.on-failure=" + this.guard.failureMode().configName()
						+ " until it can");
			}
			return Mono.empty();
		}).block();
	}

	@Override
	public Flux<BucketSnapshot> buckets(RateLimitPolicy policy) {
		return this.script.buckets(policy).timeout(this.readTimeout);
	}

	@Override
	public Flux<BucketSnapshot> bucket(RateLimitPolicy policy, String key) {
		return this.script.bucket(policy, key).timeout(this.readTimeout);
	}

	@Override
	public Mono<Boolean> reset(RateLimitPolicy policy, String key) {
		return this.script.reset(policy, key).timeout(this.readTimeout);
	}

	@Override
	public Mono<Long> bucketCount(RateLimitPolicy policy) {
		return this.script.count(policy).timeout(this.readTimeout);
	}

}
