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
	public Map<String, Object> parameters() {
		Map<String, Object> parameters = new LinkedHashMap<>();
		parameters.put("limit", this.limit);
		parameters.put("window", this.window);
		return parameters;
	}

	/**
	 * Words: the window's index, then the units counted in it.
	 */
	@Override
	public void start(StateWords state, long nowNanos) {
		AlignedWindows.start(state, nowNanos, Nanos.ofValidated(this.window));
		state.word1 = 0;
	}

	@Override
	public Decision probe(StateWords state, long nowNanos, long cost) {
		return judge(state, nowNanos, cost, false);
	}

	/**
	 * {@link #probe} and {@link #commit} in one pass: the window is rolled once and the
	 * decision built at one site.
	 */
	@Override
	public Decision tryAcquire(StateWords state, long nowNanos, long cost) {
		return judge(state, nowNanos, cost, true);
	}

	private Decision judge(StateWords state, long nowNanos, long cost, boolean consume) {
		long windowNanos = Nanos.ofValidated(this.window);
		long count = roll(state, nowNanos, windowNanos);
		long untilWindowEnd = windowNanos - AlignedWindows.elapsed(state, nowNanos, windowNanos);
		boolean allowed = cost <= this.limit - count;
		long after = allowed ? count + cost : count;
		if (consume) {
			state.word1 = after;
		}
		// Every unit comes back at once, at the end of the window. A cost above the limit
		// never fits; the end of the window is still the earliest instant anything
		// changes.
		long reset = (after > 0 || !allowed) ? untilWindowEnd : 0;
		return new Decision(allowed, this.limit - after, this.limit, reset, allowed ? 0 : untilWindowEnd);
	}

	@Override
	public void commit(StateWords state, long nowNanos, long cost) {
		state.word1 = roll(state, nowNanos, Nanos.ofValidated(this.window)) + cost;
	}

	@Override
	public Map<String, Number> describe(StateWords state, long nowNanos) {
		return Map.of("count", roll(state, nowNanos, Nanos.ofValidated(this.window)));
	}

	/**
	 * The count of the window {@code nowNanos} falls in.
	 */
	private static long roll(StateWords state, long nowNanos, long windowNanos) {
		if (AlignedWindows.roll(state, nowNanos, windowNanos) != AlignedWindows.SAME) {
			state.word1 = 0;
		}
		return state.word1;
	}

}
