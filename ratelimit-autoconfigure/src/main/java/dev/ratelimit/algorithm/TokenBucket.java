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
	public Map<String, Object> parameters() {
		Map<String, Object> parameters = new LinkedHashMap<>();
		parameters.put("capacity", this.capacity);
		parameters.put("refill-rate", this.refillRate);
		parameters.put("refill-period", this.refillPeriod);
		return parameters;
	}

	/**
	 * Words: the tokens held (a {@code double}'s bits), then when they were last
	 * refilled.
	 */
	@Override
	public void start(StateWords state, long nowNanos) {
		state.word0 = Double.doubleToRawLongBits(this.capacity);
		state.word1 = nowNanos;
	}

	@Override
	public Decision probe(StateWords state, long nowNanos, long cost) {
		return judge(state, nowNanos, cost, false);
	}

	/**
	 * {@link #probe} and {@link #commit} in one pass: the tokens are refilled once and
	 * the decision built at one site.
	 */
	@Override
	public Decision tryAcquire(StateWords state, long nowNanos, long cost) {
		return judge(state, nowNanos, cost, true);
	}

	private Decision judge(StateWords state, long nowNanos, long cost, boolean consume) {
		double periodNanos = Nanos.of(this.refillPeriod);
		double tokens = refill(state, nowNanos, periodNanos);
		boolean allowed = tokens + Nanos.UNIT_EPSILON >= cost;
		long remaining;
		long reset;
		if (allowed) {
			double after = Math.max(0, tokens - cost);
			if (consume) {
				state.word0 = Double.doubleToRawLongBits(after);
			}
			remaining = Nanos.wholeUnits(after);
			// When the next whole token arrives, not when the bucket is full again: within
			// that time the client can use no more than the remaining.
			reset = (remaining < this.capacity) ? untilHolding(remaining + 1, after, periodNanos) : 0;
		}
		else {
			remaining = Nanos.wholeUnits(tokens);
			// A cost above the capacity never fits; report when the bucket is full.
			reset = Math.max(1, untilHolding(Math.min(cost, this.capacity), tokens, periodNanos));
		}
		return new Decision(allowed, remaining, this.capacity, reset, allowed ? 0 : reset);
	}

	@Override
	public void commit(StateWords state, long nowNanos, long cost) {
		double tokens = refill(state, nowNanos, Nanos.of(this.refillPeriod));
		state.word0 = Double.doubleToRawLongBits(Math.max(0, tokens - cost));
	}

	@Override
	public Map<String, Number> describe(StateWords state, long nowNanos) {
		return Map.of("tokens", Nanos.display(refill(state, nowNanos, Nanos.of(this.refillPeriod))));
	}

	/**
	 * The tokens held at {@code nowNanos}.
	 */
	private double refill(StateWords state, long nowNanos, double periodNanos) {
		double tokens = Double.longBitsToDouble(state.word0);
		long elapsed = nowNanos - state.word1;
		// A late reading neither refills nor moves the refill instant back.
		if (elapsed <= 0) {
			return tokens;
		}
		// Multiplying before dividing keeps whole periods exact: 1s at 3/s is 3.0.
		tokens = Math.min(this.capacity, tokens + elapsed * this.refillRate / periodNanos);
		state.word0 = Double.doubleToRawLongBits(tokens);
		state.word1 = nowNanos;
		return tokens;
	}

	/**
	 * Nanoseconds until the bucket, now holding {@code tokens}, holds {@code target}.
	 */
	private long untilHolding(double target, double tokens, double periodNanos) {
		double missing = target - tokens;
		if (missing <= Nanos.UNIT_EPSILON) {
			return 0;
		}
		return Nanos.ceil(missing * periodNanos / this.refillRate);
	}

}
