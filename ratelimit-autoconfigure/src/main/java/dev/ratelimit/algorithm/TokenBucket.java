package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Token bucket: bursts up to {@code capacity}, refilled continuously at
 * {@code refillRate} per {@code refillPeriod}. A new client starts with a full
 * bucket; tokens are fractional, so a slow rate (1 per minute) refills smoothly and
 * the bucket never holds more than its capacity.
 */
public record TokenBucket(long capacity, double refillRate, Duration refillPeriod) implements Limit {

	public TokenBucket {
		Validation.positive("capacity", capacity);
		Validation.positiveRate("refill-rate", refillRate);
		Validation.positiveDuration("refill-period", refillPeriod);
	}

	@Override
	public Algorithm algorithm() {
		return Algorithm.TOKEN_BUCKET;
	}

	@Override
	public long quota() {
		return this.capacity;
	}

	/**
	 * The time the bucket takes to refill from empty to full.
	 */
	@Override
	public Duration window() {
		return Duration.ofNanos(Nanos.ceil(this.capacity / this.refillRate * this.refillPeriod.toNanos()));
	}

	@Override
	public Duration idleTimeout() {
		return window();
	}

	@Override
	public LimitState newState(long nowNanos) {
		return new State(this.capacity, this.refillRate, this.refillPeriod.toNanos(), nowNanos);
	}

	@Override
	public Map<String, Object> parameters() {
		Map<String, Object> parameters = new LinkedHashMap<>();
		parameters.put("capacity", this.capacity);
		parameters.put("refill-rate", this.refillRate);
		parameters.put("refill-period", this.refillPeriod);
		return parameters;
	}

	private static final class State implements LimitState {

		private final long capacity;

		private final double rate;

		private final double periodNanos;

		private double tokens;

		private long refilledAt;

		State(long capacity, double rate, long periodNanos, long nowNanos) {
			this.capacity = capacity;
			this.rate = rate;
			this.periodNanos = periodNanos;
			this.tokens = capacity;
			this.refilledAt = nowNanos;
		}

		@Override
		public Decision probe(long nowNanos, long cost) {
			refill(nowNanos);
			if (this.tokens + Nanos.UNIT_EPSILON >= cost) {
				double after = Math.max(0, this.tokens - cost);
				long remaining = Nanos.wholeUnits(after);
				// When the next whole token arrives, not when the bucket is full again:
				// within that time the client can use no more than the remaining.
				long reset = (remaining < this.capacity) ? untilHolding(remaining + 1, after) : 0;
				return new Decision(true, remaining, this.capacity, reset, 0);
			}
			// A cost above the capacity never fits; report when the bucket is full.
			long retryAfter = untilHolding(Math.min(cost, this.capacity), this.tokens);
			return Decision.rejected(Nanos.wholeUnits(this.tokens), this.capacity, Math.max(1, retryAfter));
		}

		@Override
		public void commit(long nowNanos, long cost) {
			refill(nowNanos);
			this.tokens = Math.max(0, this.tokens - cost);
		}

		@Override
		public Map<String, Number> describe(long nowNanos) {
			refill(nowNanos);
			return Map.of("tokens", Nanos.display(this.tokens));
		}

		private void refill(long nowNanos) {
			long elapsed = nowNanos - this.refilledAt;
			// A late reading neither refills nor moves the refill instant back.
			if (elapsed <= 0) {
				return;
			}
			// Multiplying before dividing keeps whole periods exact: 1s at 3/s is 3.0.
			this.tokens = Math.min(this.capacity, this.tokens + elapsed * this.rate / this.periodNanos);
			this.refilledAt = nowNanos;
		}

		/**
		 * Nanoseconds until the bucket, now holding {@code tokens}, holds
		 * {@code target}.
		 */
		private long untilHolding(double target, double tokens) {
			double missing = target - tokens;
			if (missing <= Nanos.UNIT_EPSILON) {
				return 0;
			}
			return Nanos.ceil(missing * this.periodNanos / this.rate);
		}

	}

}
