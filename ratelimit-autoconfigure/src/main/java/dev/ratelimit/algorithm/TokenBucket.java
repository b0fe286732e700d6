package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Token bucket: bursts up to {@code capacity}, refilled continuously at
 * {@code refillRate} per {@code refillPeriod}. A new client starts with a full
 * bucket; tokens are fractional, so a slow rate (1 per minute) refills smoothly and
 * the bucket never holds more than its capacity.
 * <p>
 * With {@code shaping}, a request finding too few tokens reserves the tokens still to
 * come, when they come within {@link Shaping#maxDelay()}: the tokens go below zero and
 * the request is released when they are refilled, so each later request waits behind
 * it (a reservation, as Guava's {@code tryAcquire(timeout)}). Otherwise it is rejected
 * at once.
 * <p>
 * A {@linkplain #charge charge}, a cost known only after the response, takes its tokens
 * whether they are there or not: below zero, a meter's too, they are a debt, and every
 * request is refused (or, shaping, held) until it has been refilled.
 */
public record TokenBucket(long capacity, double refillRate, Duration refillPeriod,
		@Nullable Shaping shaping) implements Limit {

	public TokenBucket {
		Validation.positive("capacity", capacity);
		Validation.positiveRate("refill-rate", refillRate);
		Validation.positiveDuration("refill-period", refillPeriod);
		if (shaping != null && shaping.delayAfter() != 1) {
			throw new IllegalArgumentException("shaping.delay-after must not be set for a token bucket, whose "
					+ "capacity is the burst that passes at once, but was " + shaping.delayAfter());
		}
	}

	/**
	 * A token bucket that meters.
	 */
	public TokenBucket(long capacity, double refillRate, Duration refillPeriod) {
		this(capacity, refillRate, refillPeriod, null);
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

	/**
	 * The time to refill from empty to full, and, while shaping, from the deepest
	 * reservations below zero: {@code max-delay} more.
	 */
	@Override
	public Duration idleTimeout() {
		return (this.shaping != null) ? window().plus(this.shaping.maxDelay()) : window();
	}

	/**
	 * The time until the bucket is full again, paying back any debt or reservation below
	 * zero, and never less than the idle timeout: in nanoseconds,
	 * {@code max(idleTimeout, ceil((capacity - tokens) * refillPeriod / refillRate)
	 * - max(0, now - refilledAt))}, where {@code tokens} and {@code refilledAt} are the
	 * state as last written (the tokens held at {@code refilledAt}, not refilled since),
	 * {@code idleTimeout} is {@code ceil(capacity / refillRate * refillPeriod)}, plus
	 * {@code max-delay} when shaping, and the second term is taken as {@code 0} when
	 * {@code tokens >= capacity}. Within the capacity the second term is at most the
	 * first: only a debt makes it longer.
	 */
	@Override
	public long idleNanos(StateWords state, long nowNanos) {
		double periodNanos = Nanos.of(this.refillPeriod);
		long untilFull = untilHolding(this.capacity, tokens(state), periodNanos)
				- Math.max(0, nowNanos - refilledAt(state));
		long window = Nanos.ceil(this.capacity / this.refillRate * periodNanos);
		long idleTimeout = (this.shaping != null) ? saturatedSum(window, this.shaping.maxDelayNanos()) : window;
		return Math.max(idleTimeout, untilFull);
	}

	private static long saturatedSum(long a, long b) {
		long sum = a + b;
		return (sum < 0) ? Long.MAX_VALUE : sum;
	}

	@Override
	public Map<String, Object> parameters() {
		Map<String, Object> parameters = new LinkedHashMap<>();
		parameters.put("capacity", this.capacity);
		parameters.put("refill-rate", this.refillRate);
		parameters.put("refill-period", this.refillPeriod);
		if (this.shaping != null) {
			parameters.put("shaping.max-delay", this.shaping.maxDelay());
		}
		return parameters;
	}

	@Override
	public void start(StateWords state, long nowNanos) {
		setTokens(state, this.capacity);
		setRefilledAt(state, nowNanos);
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
		if (this.shaping != null) {
			return reserve(state, tokens, cost, consume, periodNanos);
		}
		// A probe of nothing takes nothing: it is admitted even from a debt, and describes it.
		boolean allowed = tokens + Nanos.UNIT_EPSILON >= cost || cost == 0;
		long remaining;
		long reset;
		if (allowed) {
			double after = afterTaking(tokens, cost);
			if (consume) {
				setTokens(state, after);
			}
			remaining = Nanos.wholeUnits(after);
			// When the next whole token arrives, not when the bucket is full again: within
			// that time the client can use no more than the remaining.
			reset = (remaining < this.capacity) ? untilHolding(remaining + 1, after, periodNanos) : 0;
		}
		else {
			remaining = Nanos.wholeUnits(tokens);
			// Counting any debt below zero. A cost above the capacity never fits; report when
			// the bucket is full.
			reset = Math.max(1, untilHolding(Math.min(cost, this.capacity), tokens, periodNanos));
		}
		return new Decision(allowed, remaining, this.capacity, reset, allowed ? 0 : reset);
	}

	/**
	 * The judgement of a shaping bucket: the tokens missing are reserved, and the request
	 * released when they have been refilled.
	 */
	private Decision reserve(StateWords state, double tokens, long cost, boolean consume, double periodNanos) {
		long delay = untilHolding(cost, tokens, periodNanos);
		long overDelay = delay - this.shaping.maxDelayNanos();
		if (overDelay > 0) {
			return Decision.rejected(Nanos.wholeUnits(tokens), this.capacity, overDelay);
		}
		double after = tokens - cost;
		if (consume) {
			setTokens(state, after);
		}
		long remaining = Nanos.wholeUnits(after);
		long reset = (remaining < this.capacity) ? untilHolding(remaining + 1, after, periodNanos) : 0;
		return new Decision(true, remaining, this.capacity, reset, 0, delay);
	}

	@Override
	public void commit(StateWords state, long nowNanos, long cost) {
		double tokens = refill(state, nowNanos, Nanos.of(this.refillPeriod));
		// A shaping bucket's tokens go below zero: the reservations of held requests.
		setTokens(state, (this.shaping != null) ? tokens - cost : afterTaking(tokens, cost));
	}

	/**
	 * A meter's tokens after admitting {@code cost} from {@code tokens}: never below zero
	 * by an admission (a cost admitted within the tolerance leaves none, not a fraction
	 * below), but a debt a charge left is kept, for a probe of nothing to take nothing.
	 */
	private static double afterTaking(double tokens, long cost) {
		return Math.max(Math.min(0, tokens), tokens - cost);
	}

	/**
	 * The tokens come back, refilled first to now and at most the capacity, so that a
	 * full bucket is not overfilled.
	 */
	@Override
	public void refund(StateWords state, long nowNanos, long units, long consumedAtNanos) {
		double tokens = refill(state, nowNanos, Nanos.of(this.refillPeriod));
		setTokens(state, Math.min(this.capacity, tokens + units));
	}

	/**
	 * The tokens are taken, refilled first to now, whether they are there or not: below
	 * zero, a meter's too, they are a debt that later requests wait for, counted in their
	 * retry-after.
	 */
	@Override
	public void charge(StateWords state, long nowNanos, long units) {
		setTokens(state, refill(state, nowNanos, Nanos.of(this.refillPeriod)) - units);
	}

	/**
	 * The tokens held, below zero while held requests have reserved tokens still to come
	 * or while charges past the capacity are owed.
	 */
	@Override
	public Map<String, Number> describe(StateWords state, long nowNanos) {
		return Map.of("tokens", Nanos.display(refill(state, nowNanos, Nanos.of(this.refillPeriod))));
	}

	/**
	 * Refilled at the old rate up to now, then the client keeps what it had consumed
	 * ({@code capacity - tokens}) against the new capacity; from now on it refills at the
	 * new rate. An idle client is full under the new capacity, as a new client is.
	 * Tokens below zero, reservations and charges alike, are units already let through:
	 * at least that debt carries over, shaping or not, but a lowered capacity alone leaves
	 * the client nothing, not a debt. Another algorithm's state: fresh.
	 */
	@Override
	public void carryOver(Limit previous, StateWords from, StateWords to, long nowNanos) {
		if (previous instanceof TokenBucket old) {
			double tokens = old.refill(from, nowNanos, Nanos.of(old.refillPeriod));
			double consumed = old.capacity - tokens;
			setTokens(to, Math.max(Math.min(0, tokens), Math.min(this.capacity, this.capacity - consumed)));
			setRefilledAt(to, refilledAt(from));
		}
	}

	/**
	 * The tokens held at {@code nowNanos}.
	 */
	private double refill(StateWords state, long nowNanos, double periodNanos) {
		double tokens = tokens(state);
		long elapsed = nowNanos - refilledAt(state);
		// A late reading neither refills nor moves the refill instant back.
		if (elapsed <= 0) {
			return tokens;
		}
		// Multiplying before dividing keeps whole periods exact: 1s at 3/s is 3.0.
		tokens = Math.min(this.capacity, tokens + elapsed * this.refillRate / periodNanos);
		setTokens(state, tokens);
		setRefilledAt(state, nowNanos);
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

	// The state's layout: the tokens held, as a double's bits, then when they were last
	// refilled.

	private static double tokens(StateWords state) {
		return Double.longBitsToDouble(state.word0);
	}

	private static void setTokens(StateWords state, double tokens) {
		state.word0 = Double.doubleToRawLongBits(tokens);
	}

	private static long refilledAt(StateWords state) {
		return state.word1;
	}

	private static void setRefilledAt(StateWords state, long nanos) {
		state.word1 = nanos;
	}

}
