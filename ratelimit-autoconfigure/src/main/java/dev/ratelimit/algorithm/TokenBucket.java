package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.Map;

/**
 * Token bucket: bursts up to {@code capacity}, refilled continuously at {@code refillRate} per {@code refillPeriod}.
 */
public record TokenBucket(long capacity, double refillRate, Duration refillPeriod) implements Limit {

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
