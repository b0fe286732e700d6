package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Sliding window counter: the current window's count plus the previous window's
 * weighted by its overlap with the window ending now:
 * {@code estimate = current + previous * (1 - elapsedFraction)}. Windows are aligned
 * as for {@link FixedWindow}. Two counters per client, whatever the limit.
 * <p>
 * A request is admitted when {@code estimate + cost <= limit}, not when
 * {@code estimate < limit} as the usual pseudocode has it: with that rule an
 * estimate of 99.5 admits one more unit and ends above the limit, while the remaining
 * reported to the client ({@code floor(limit - estimate)}) already said 0. With this
 * rule the remaining and the next decision always agree: a unit request is admitted
 * exactly when remaining is at least 1.
 */
public record SlidingWindowCounter(long limit, Duration window) implements Limit {

	public SlidingWindowCounter {
		Validation.positive("limit", limit);
		Validation.positiveDuration("window", window);
	}

	@Override
	public Algorithm algorithm() {
		return Algorithm.SLIDING_WINDOW_COUNTER;
	}

	@Override
	public long quota() {
		return this.limit;
	}

	/**
	 * Two windows: the previous window's count weighs on the estimate until the end of
	 * the window after it.
	 */
	@Override
	public Duration idleTimeout() {
		return this.window.multipliedBy(2);
	}

	@Override
	public LimitState newState(long nowNanos) {
		return new State(this.limit, this.window.toNanos(), nowNanos);
	}

	@Override
	public Map<String, Object> parameters() {
		Map<String, Object> parameters = new LinkedHashMap<>();
		parameters.put("limit", this.limit);
		parameters.put("window", this.window);
		return parameters;
	}

	private static final class State extends AlignedWindowState {

		private long current;

		private long previous;

		State(long limit, long windowNanos, long nowNanos) {
			super(limit, windowNanos, nowNanos);
		}

		@Override
		public Decision probe(long nowNanos, long cost) {
			roll(nowNanos);
			long elapsed = elapsed(nowNanos);
			double estimate = estimate(this.current, this.previous, elapsed);
			if (estimate + cost <= this.limit + Nanos.UNIT_EPSILON) {
				long remaining = Nanos.wholeUnits(this.limit - estimate - cost);
				// The estimate falls continuously: a unit comes back once one more than
				// the remaining fits.
				long reset = (remaining < this.limit) ? untilFits(this.current + cost, remaining + 1, elapsed) : 0;
				return new Decision(true, remaining, this.limit, reset, 0);
			}
			return Decision.rejected(Nanos.wholeUnits(this.limit - estimate), this.limit,
					untilFits(this.current, cost, elapsed));
		}

		@Override
		public void commit(long nowNanos, long cost) {
			roll(nowNanos);
			this.current += cost;
		}

		@Override
		public Map<String, Number> describe(long nowNanos) {
			roll(nowNanos);
			double estimate = estimate(this.current, this.previous, elapsed(nowNanos));
			Map<String, Number> state = new LinkedHashMap<>();
			state.put("current", this.current);
			state.put("previous", this.previous);
			state.put("estimate", Nanos.display(estimate));
			return state;
		}

		@Override
		void startWindow(boolean adjacent) {
			this.previous = adjacent ? this.current : 0;
			this.current = 0;
		}

		private double estimate(long current, long previous, long elapsed) {
			return current + previous * ((double) (this.windowNanos - elapsed) / this.windowNanos);
		}

		/**
		 * Nanoseconds until the estimate reaches 0 if idle: the previous window weighs
		 * until the end of the current one, the current until the end of the next.
		 */
		private long untilEmpty(long current, long elapsed) {
			long untilWindowEnd = this.windowNanos - elapsed;
			if (current > 0) {
				return untilWindowEnd + this.windowNanos;
			}
			return (this.previous > 0) ? untilWindowEnd : 0;
		}

		/**
		 * Nanoseconds until {@code units} fit, the current window holding
		 * {@code current}: the previous window's weight falls linearly through the
		 * current window, then the current count becomes the previous one and falls
		 * through the next window.
		 */
		private long untilFits(long current, long units, long elapsed) {
			long untilWindowEnd = this.windowNanos - elapsed;
			double roomNow = this.limit - units - current;
			if (roomNow >= 0 && this.previous > 0) {
				// previous * (window - e) / window <= roomNow
				double atElapsed = this.windowNanos * (1 - roomNow / this.previous);
				return Math.max(1, Nanos.ceil(atElapsed - elapsed));
			}
			double roomNext = this.limit - units;
			if (roomNext < 0) {
				// More units than the limit never fit; report when the estimate is 0.
				return untilEmpty(current, elapsed);
			}
			if (current <= roomNext) {
				return untilWindowEnd;
			}
			double atElapsedNext = this.windowNanos * (1 - roomNext / current);
			return untilWindowEnd + Nanos.ceil(atElapsedNext);
		}

	}

}
