package dev.ratelimit.store.hybrid;

import dev.ratelimit.algorithm.Verdict;
import reactor.core.publisher.Mono;

/**
 * What a request does next with its bucket's {@link Lease}.
 */
sealed interface LeaseStep {

	/**
	 * The request is decided.
	 */
	record Decided(Verdict verdict) implements LeaseStep {
	}

	/**
	 * The request waits for the lease's call to Redis, then asks the lease again.
	 *
	 * @param reply completes when the lease applied the reply, fails with the call
	 */
	record AwaitReply(Mono<Void> reply) implements LeaseStep {
	}

	/**
	 * The request cannot be decided without waiting for Redis and was asked not to
	 * wait: nothing was counted.
	 */
	record NotNow() implements LeaseStep {
	}

	/**
	 * Redis must be asked but the circuit breaker forbids calling it: the failure mode
	 * decides.
	 */
	record RedisUnavailable() implements LeaseStep {
	}

	/**
	 * The lease was retired (idle, reset or stopping) while the request looked it up:
	 * look up the bucket's lease again.
	 */
	record Retired() implements LeaseStep {
	}

}
