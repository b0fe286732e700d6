package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.algorithm.Algorithm;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.Tier;

/**
 * Limits as their lean scripts are written for them, for tests that assemble or call a
 * lean script themselves.
 */
final class TestLeanLimits {

	private TestLeanLimits() {
	}

	/**
	 * {@code limit} as the lean script of a tier of it alone is written for it.
	 */
	static LeanLimit of(Limit limit) {
		LeanLimit lean = new RedisLayout("rl", "orders", new Tier("free", List.of(limit))).leanLimit();
		if (lean == null) {
			throw new IllegalArgumentException(limit + " has no lean script");
		}
		return lean;
	}

	/**
	 * A limit of {@code algorithm}, ten a minute, as its lean script is written for it.
	 */
	static LeanLimit of(Algorithm algorithm) {
		Duration minute = Duration.ofMinutes(1);
		return of(switch (algorithm) {
			case FIXED_WINDOW -> new FixedWindow(10, minute);
			case SLIDING_WINDOW_LOG -> new SlidingWindowLog(10, minute);
			case SLIDING_WINDOW_COUNTER -> new SlidingWindowCounter(10, minute);
			case TOKEN_BUCKET -> new TokenBucket(10, 10, minute);
			case LEAKY_BUCKET -> new LeakyBucket(10, 10, minute);
			case CONCURRENCY -> throw new IllegalArgumentException(algorithm + " has no lean script");
		});
	}

}
