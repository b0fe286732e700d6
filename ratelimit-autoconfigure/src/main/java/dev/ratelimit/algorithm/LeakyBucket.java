package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Leaky bucket as a meter: a queue of {@code capacity} draining continuously at
 * {@code drainRate} per {@code drainPeriod}. A request enters when the queue has room
 * for its cost. Unlike pseudocode that drains whole units, fractional drains are kept (the level
 * is fractional and the drain instant always advances to now), so a slow rate drains
 * smoothly and the queue never holds more than its capacity.
 */
public record LeakyBucket(long capacity, double drainRate, Duration drainPeriod) implements Limit {

	public LeakyBucket {
		Validation.positive("capacity", capacity);
		Validation.positiveRate("drain-rate", drainRate);
		Validation.positiveDuration("drain-period", drainPeriod);
	}

	@Override
	public Algorithm algorithm() {
		return Algorithm.LEAKY_BUCKET;
	}

	@Override
	public long quota() {
		return this.capacity;
	}

	/**
	 * The time a full queue takes to drain.
	 */
	@Override
	public Duration window() {
		return Duration.ofNanos(Nanos.ceil(this.capacity / this.drainRate * this.drainPeriod.toNanos()));
	}

	@Override
	public Duration idleTimeout() {
		return window();
	}

	@Override
	public LimitState newState(long nowNanos) {
		return new State(this.capacity, this.drainRate, this.drainPeriod.toNanos(), nowNanos);
	}

	@Override
	public Map<String, Object> parameters() {
		Map<String, Object> parameters = new LinkedHashMap<>();
		parameters.put("capacity", this.capacity);
		parameters.put("drain-rate", this.drainRate);
		parameters.put("drain-period", this.drainPeriod);
		return parameters;
	}

	private static final class State implements LimitState {

		private final long capacity;

		private final double rate;

		private final double periodNanos;

		private double level;

		private long drainedAt;

		State(long capacity, double rate, long periodNanos, long nowNanos) {
			this.capacity = capacity;
			this.rate = rate;
			this.periodNanos = periodNanos;
			this.drainedAt = nowNanos;
		}

		@Override
		public Decision probe(long nowNanos, long cost) {
			drain(nowNanos);
			if (this.level + cost <= this.capacity + Nanos.UNIT_EPSILON) {
				double after = Math.min(this.capacity, this.level + cost);
				long remaining = Nanos.wholeUnits(this.capacity - after);
				// When the next whole slot drains, not when the queue is empty: within
				// that time the client can use no more than the remaining.
				long reset = (remaining < this.capacity) ? untilDrained(after - (this.capacity - remaining - 1)) : 0;
				return new Decision(true, remaining, this.capacity, reset, 0);
			}
			// A cost above the capacity never fits; report when the queue is empty.
			double overflow = Math.min(this.level, this.level + cost - this.capacity);
			return Decision.rejected(Nanos.wholeUnits(this.capacity - this.level), this.capacity,
					Math.max(1, untilDrained(overflow)));
		}

		@Override
		public void commit(long nowNanos, long cost) {
			drain(nowNanos);
			this.level = Math.min(this.capacity, this.level + cost);
		}

		@Override
		public Map<String, Number> describe(long nowNanos) {
			drain(nowNanos);
			return Map.of("level", Nanos.display(this.level));
		}

		private void drain(long nowNanos) {
			long elapsed = nowNanos - this.drainedAt;
			// A late reading neither drains nor moves the drain instant back.
			if (elapsed <= 0) {
				return;
			}
			this.level = Math.max(0, this.level - elapsed * this.rate / this.periodNanos);
			this.drainedAt = nowNanos;
		}

		/**
		 * Nanoseconds until {@code units} have drained.
		 */
		private long untilDrained(double units) {
			if (units <= Nanos.UNIT_EPSILON) {
				return 0;
			}
			return Nanos.ceil(units * this.periodNanos / this.rate);
		}

	}

}
