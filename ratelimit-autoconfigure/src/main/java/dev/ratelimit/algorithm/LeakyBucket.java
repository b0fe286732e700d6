package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Leaky bucket: a queue of {@code capacity} draining continuously at {@code drainRate}
 * per {@code drainPeriod}. A request enters when the queue has room for its cost.
 * Unlike pseudocode that drains whole units, fractional drains are kept (the level is
 * fractional and the drain instant always advances to now), so a slow rate drains
 * smoothly and the queue never holds more than its capacity.
 * <p>
 * As a meter (no {@code shaping}) a request that enters is forwarded at once. As a
 * queue it is forwarded when the queue ahead of it has drained (all but the
 * {@link Shaping#delayAfter()} units that pass at once), so requests leave at the drain
 * rate however they arrive; one whose wait would exceed {@link Shaping#maxDelay()} is
 * rejected at once.
 * <p>
 * A {@linkplain #charge charge}, a cost known only after the response, enters the queue
 * whether it has room or not: above the capacity, the level is a debt, and every request
 * is refused until it has drained.
 */
public record LeakyBucket(long capacity, double drainRate, Duration drainPeriod,
		@Nullable Shaping shaping) implements Limit {

	public LeakyBucket {
		Validation.positive("capacity", capacity);
		Validation.positiveRate("drain-rate", drainRate);
		Validation.positiveDuration("drain-period", drainPeriod);
		if (shaping != null && shaping.delayAfter() >= capacity) {
			throw new IllegalArgumentException("shaping.delay-after must be less than capacity (" + capacity
					+ ") but was " + shaping.delayAfter() + ", or no request would ever be held");
		}
	}

	/**
	 * A leaky bucket as a meter.
	 */
	public LeakyBucket(long capacity, double drainRate, Duration drainPeriod) {
		this(capacity, drainRate, drainPeriod, null);
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

	/**
	 * The time until the queue has drained, a debt above the capacity included, and never
	 * less than the idle timeout: in nanoseconds,
	 * {@code max(idleTimeout, ceil(level * drainPeriod / drainRate) - max(0, now -
	 * drainedAt))}, where {@code level} and {@code drainedAt} are the state as last
	 * written (the level at {@code drainedAt}, not drained since), {@code idleTimeout} is
	 * {@code ceil(capacity / drainRate * drainPeriod)} and the second term is taken as
	 * {@code 0} for an empty queue. Within the capacity the second term is at most the
	 * first: only a debt makes it longer.
	 */
	@Override
	public long idleNanos(StateWords state, long nowNanos) {
		double periodNanos = Nanos.of(this.drainPeriod);
		long untilEmpty = untilDrained(level(state), periodNanos) - Math.max(0, nowNanos - drainedAt(state));
		return Math.max(Nanos.ceil(this.capacity / this.drainRate * periodNanos), untilEmpty);
	}

	@Override
	public Map<String, Object> parameters() {
		Map<String, Object> parameters = new LinkedHashMap<>();
		parameters.put("capacity", this.capacity);
		parameters.put("drain-rate", this.drainRate);
		parameters.put("drain-period", this.drainPeriod);
		if (this.shaping != null) {
			parameters.put("shaping.max-delay", this.shaping.maxDelay());
			parameters.put("shaping.delay-after", this.shaping.delayAfter());
		}
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
		if (this.shaping != null) {
			return queue(state, level, cost, consume, periodNanos);
		}
		// A probe of nothing takes nothing: it is admitted even from a debt, and describes it.
		boolean allowed = level + cost <= this.capacity + Nanos.UNIT_EPSILON || cost == 0;
		if (!allowed) {
			return Decision.rejected(Nanos.wholeUnits(this.capacity - level), this.capacity,
					untilFits(level, cost, periodNanos));
		}
		double after = afterEntering(level, cost);
		if (consume) {
			setLevel(state, after);
		}
		long remaining = Nanos.wholeUnits(this.capacity - after);
		return new Decision(true, remaining, this.capacity, reset(after, remaining, periodNanos), 0);
	}

	/**
	 * The judgement of a shaping bucket: the request's place at the back of the queue,
	 * released once what is ahead of it has drained to what passes at once.
	 */
	private Decision queue(StateWords state, double level, long cost, boolean consume, double periodNanos) {
		long delay = untilDrained(level - (this.shaping.delayAfter() - 1), periodNanos);
		long overDelay = delay - this.shaping.maxDelayNanos();
		boolean fits = level + cost <= this.capacity + Nanos.UNIT_EPSILON;
		if (!fits || overDelay > 0) {
			// Until the cost fits and the queue ahead drains to within the longest hold.
			long retryAfter = Math.max(fits ? 0 : untilFits(level, cost, periodNanos), Math.max(1, overDelay));
			return Decision.rejected(Nanos.wholeUnits(this.capacity - level), this.capacity, retryAfter);
		}
		double after = Math.min(this.capacity, level + cost);
		if (consume) {
			setLevel(state, after);
		}
		long remaining = Nanos.wholeUnits(this.capacity - after);
		return new Decision(true, remaining, this.capacity, reset(after, remaining, periodNanos), 0, delay);
	}

	/**
	 * When the next whole slot drains after a request left the queue at {@code after},
	 * not when the queue is empty: within that time the client can use no more than the
	 * remaining.
	 */
	private long reset(double after, long remaining, double periodNanos) {
		return (remaining < this.capacity) ? untilDrained(after - (this.capacity - remaining - 1), periodNanos) : 0;
	}

	/**
	 * Nanoseconds until {@code cost} fits in a queue at {@code level}, at least one; a cost
	 * above the capacity never fits, so when the queue is empty.
	 */
	private long untilFits(double level, long cost, double periodNanos) {
		return Math.max(1, untilDrained(Math.min(level, level + cost - this.capacity), periodNanos));
	}

	@Override
	public void commit(StateWords state, long nowNanos, long cost) {
		double level = drain(state, nowNanos, Nanos.of(this.drainPeriod));
		setLevel(state, afterEntering(level, cost));
	}

	/**
	 * The level after admitting {@code cost} at {@code level}: never above the capacity by
	 * an admission (a cost admitted within the tolerance fills it, not a fraction beyond),
	 * but a debt a charge left is kept, for a probe of nothing to take nothing.
	 */
	private double afterEntering(double level, long cost) {
		return Math.max(level, Math.min(this.capacity, level + cost));
	}

	/**
	 * The units leave the queue: drained first to now, so that units already drained
	 * are not given back twice.
	 */
	@Override
	public void refund(StateWords state, long nowNanos, long units, long consumedAtNanos) {
		double level = drain(state, nowNanos, Nanos.of(this.drainPeriod));
		setLevel(state, Math.max(0, level - units));
	}

	/**
	 * The units enter the queue, drained first to now, whether it has room or not: above
	 * the capacity they are a debt that later requests wait for, counted in their
	 * retry-after.
	 */
	@Override
	public void charge(StateWords state, long nowNanos, long units) {
		setLevel(state, drain(state, nowNanos, Nanos.of(this.drainPeriod)) + units);
	}

	/**
	 * The queue's level, above the capacity while charges past it are owed; a shaping
	 * bucket's also the seconds a request judged now would be held ({@code hold}).
	 */
	@Override
	public Map<String, Number> describe(StateWords state, long nowNanos) {
		double periodNanos = Nanos.of(this.drainPeriod);
		double level = drain(state, nowNanos, periodNanos);
		if (this.shaping == null) {
			return Map.of("level", Nanos.display(level));
		}
		long hold = untilDrained(level - (this.shaping.delayAfter() - 1), periodNanos);
		Map<String, Number> described = new LinkedHashMap<>();
		described.put("level", Nanos.display(level));
		described.put("hold", Nanos.display(hold / (double) Nanos.PER_SECOND));
		return described;
	}

	/**
	 * Drained at the old rate up to now, then the queue's level carries over; from now on
	 * it drains at the new rate. A level above the old capacity is a debt for units
	 * already let through: that debt stays above the new capacity, but a lowered capacity
	 * alone leaves the client a full queue, not a debt:
	 * {@code min(level, capacity + max(0, level - previousCapacity))}, as
	 * {@link TokenBucket#carryOver} keeps what was consumed. Another algorithm's state:
	 * fresh.
	 */
	@Override
	public void carryOver(Limit previous, StateWords from, StateWords to, long nowNanos) {
		if (previous instanceof LeakyBucket old) {
			double level = old.drain(from, nowNanos, Nanos.of(old.drainPeriod));
			setLevel(to, Math.min(level, this.capacity + Math.max(0, level - old.capacity)));
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
