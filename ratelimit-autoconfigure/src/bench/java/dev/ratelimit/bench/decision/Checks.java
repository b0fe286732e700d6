package dev.ratelimit.bench.decision;

import dev.ratelimit.bench.KeyedLimiter;
import dev.ratelimit.store.BucketId;

/**
 * Set-up checks that a benchmark measures the path it names, so that a misconfigured
 * quota fails the run instead of measuring the wrong thing.
 */
final class Checks {

	private Checks() {
	}

	static void admits(KeyedLimiter limiter, BucketId id, boolean expected) {
		boolean admitted = limiter.admitted(limiter.acquire(id));
		if (admitted != expected) {
			throw new IllegalStateException(limiter.getClass().getSimpleName() + " " + (admitted ? "admitted" : "rejected")
					+ " a request of " + id + " that the benchmark expects " + (expected ? "admitted" : "rejected"));
		}
	}

}
