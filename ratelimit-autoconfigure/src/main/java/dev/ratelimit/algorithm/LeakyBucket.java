package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.Map;

/**
 * Leaky bucket as a meter: a queue of {@code capacity} draining continuously at {@code drainRate} per {@code drainPeriod}.
 */
public record LeakyBucket(long capacity, double drainRate, Duration drainPeriod) implements Limit {

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
