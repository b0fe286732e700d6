package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Fixed window counter: at most {@code limit} units per aligned window. Windows are
 * aligned on multiples of {@code window} of the clock's timeline, which counts from the
 * Unix epoch (see {@link MonotonicClock}), so a {@code 1d} window starts at 00:00 UTC.
 * A client may spend its limit at the end of one window and again at the start of the
 * next (the boundary burst).
 */
public record FixedWindow(long limit, Duration window) implements Limit {

	public FixedWindow {
		Validation.positive("limit", limit);
		Validation.positiveDuration("window", window);
	}

	@Override
	public Algorithm algorithm() {
		return Algorithm.FIXED_WINDOW;
	}

	@Override
	public long quota() {
		return this.limit;
	}

	@Override
	public Duration idleTimeout() {
		return this.window;
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

		private long count;

		State(long limit, long windowNanos, long nowNanos) {
			super(limit, windowNanos, nowNanos);
		}

		@Override
		public Decision probe(long nowNanos, long cost) {
			roll(nowNanos);
			long untilWindowEnd = untilWindowEnd(nowNanos);
			if (cost <= this.limit - this.count) {
				long after = this.count + cost;
				// Every unit comes back at once, at the end of the window.
				return new Decision(true, this.limit - after, this.limit, (after > 0) ? untilWindowEnd : 0, 0);
			}
			// A cost above the limit never fits; the end of the window is still the
			// earliest instant anything changes.
			return Decision.rejected(this.limit - this.count, this.limit, untilWindowEnd);
		}

		@Override
		public void commit(long nowNanos, long cost) {
			roll(nowNanos);
			this.count += cost;
		}

		@Override
		public Map<String, Number> describe(long nowNanos) {
			roll(nowNanos);
			return Map.of("count", this.count);
		}

		@Override
		void startWindow(boolean adjacent) {
			this.count = 0;
		}

	}

}
