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
	public Map<String, Object> parameters() {
		Map<String, Object> parameters = new LinkedHashMap<>();
		parameters.put("capacity", this.capacity);
		parameters.put("drain-rate", this.drainRate);
		parameters.put("drain-period", this.drainPeriod);
		return parameters;
	}

	@Override
	public void start(StateWords state, long nowNanos) {
		setLevel(state, 0);
		setDrainedAt(state, nowNanos);
	}

	@Override
	public Decision probe(StateWords state, long nowNanos, long cost) {
		return judge(state, nowNanos, cost, false);
	}

	/**
	 * {@link #probe} and {@link #commit} in one pass: the queue is drained once and the
	 * decision built at one site.
	 */
	@Override
	public Decision tryAcquire(StateWords state, long nowNanos, long cost) {
		return judge(state, nowNanos, cost, true);
	}

	private Decision judge(StateWords state, long nowNanos, long cost, boolean consume) {
		double periodNanos = Nanos.of(this.drainPeriod);
		double level = drain(state, nowNanos, periodNanos);
		boolean allowed = level + cost <= this.capacity + Nanos.UNIT_EPSILON;
		long remaining;
		long reset;
		if (allowed) {
			double after = Math.min(this.capacity, level + cost);
			if (consume) {
				setLevel(state, after);
			}
			remaining = Nanos.wholeUnits(this.capacity - after);
			// When the next whole slot drains, not when the queue is empty: within that
			// time the client can use no more than the remaining.
			reset = (remaining < this.capacity)
					? untilDrained(after - (this.capacity - remaining - 1), periodNanos) : 0;
		}
		else {
			remaining = Nanos.wholeUnits(this.capacity - level);
			// A cost above the capacity never fits; report when the queue is empty.
			double overflow = Math.min(level, level + cost - this.capacity);
			reset = Math.max(1, untilDrained(overflow, periodNanos));
		}
		return new Decision(allowed, remaining, this.capacity, reset, allowed ? 0 : reset);
	}

	@Override
	public void commit(StateWords state, long nowNanos, long cost) {
		double level = drain(state, nowNanos, Nanos.of(this.drainPeriod));
		setLevel(state, Math.min(this.capacity, level + cost));
	}

	@Override
	public Map<String, Number> describe(StateWords state, long nowNanos) {
		return Map.of("level", Nanos.display(drain(state, nowNanos, Nanos.of(this.drainPeriod))));
	}

	/**
	 * Drained at the old rate up to now, then the queue's level carries over, at most the
	 * new capacity; from now on it drains at the new rate. Another algorithm's state:
	 * fresh.
	 */
	@Override
	public void carryOver(Limit previous, StateWords from, StateWords to, long nowNanos) {
		if (previous instanceof LeakyBucket old) {
			setLevel(to, Math.min(this.capacity, old.drain(from, nowNanos, Nanos.of(old.drainPeriod))));
			setDrainedAt(to, drainedAt(from));
		}
	}

	/**
	 * The queue's level at {@code nowNanos}.
	 */
	private double drain(StateWords state, long nowNanos, double periodNanos) {
		double level = level(state);
		long elapsed = nowNanos - drainedAt(state);
		// A late reading neither drains nor moves the drain instant back.
		if (elapsed <= 0) {
			return level;
		}
		level = Math.max(0, level - elapsed * this.drainRate / periodNanos);
		setLevel(state, level);
		setDrainedAt(state, nowNanos);
		return level;
	}

	/**
	 * Nanoseconds until {@code units} have drained.
	 */
	private long untilDrained(double units, double periodNanos) {
		if (units <= Nanos.UNIT_EPSILON) {
			return 0;
		}
		return Nanos.ceil(units * periodNanos / this.drainRate);
	}

	// The state's layout: the queue's level, as a double's bits, then when it last
	// drained.

	private static double level(StateWords state) {
		return Double.longBitsToDouble(state.word0);
	}

	private static void setLevel(StateWords state, double level) {
		state.word0 = Double.doubleToRawLongBits(level);
	}

	private static long drainedAt(StateWords state) {
		return state.word1;
	}

	private static void setDrainedAt(StateWords state, long nanos) {
		state.word1 = nanos;
	}

}
