package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.Map;

/**
 * Sliding window log: at most {@code limit} units in any window ending now, exact.
 */
public record SlidingWindowLog(long limit, Duration window) implements Limit {

	@Override
	public Algorithm algorithm() {
		throw new UnsupportedOperationException("skeleton: implemented by the algorithms work");
	}

	@Override
	public long quota() {
		throw new UnsupportedOperationException("skeleton: implemented by the algorithms work");
	}

	@Override
	public Duration window() {
		throw new UnsupportedOperationException("skeleton: implemented by the algorithms work");
	}

	@Override
	public Duration idleTimeout() {
		throw new UnsupportedOperationException("skeleton: implemented by the algorithms work");
	}

	@Override
	public LimitState newState(long nowNanos) {
		throw new UnsupportedOperationException("skeleton: implemented by the algorithms work");
	}

	@Override
	public Map<String, Object> parameters() {
		throw new UnsupportedOperationException("skeleton: implemented by the algorithms work");
	}

}
