package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.Map;

/**
 * Sliding window counter: the current window's count plus the previous window's weighted by its overlap.
 */
public record SlidingWindowCounter(long limit, Duration window) implements Limit {

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
