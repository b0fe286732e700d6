package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Fixed window counter: at most {@code limit} units per aligned window. Windows are
 * aligned on multiples of {@code window} of the clock's timeline, which counts from the
 * Unix epoch (see {@link dev.ratelimit.support.MonotonicClock}), so a {@code 1d} window starts at 00:00 UTC.
 * A client may spend its limit at the end of one window and again at the start of the
 * next (the boundary burst).
 * <p>
 * A {@linkplain #charge charge}, a cost known only after the response, is counted
 * whether the window has room or not: a count above the limit refuses every request
 * until the window ends.
 */
public record FixedWindow(long limit, Duration window, @Nullable CalendarPeriods calendar) implements Limit {

	/**
	 * @param limit units per window
	 * @param window the window's length; for a limit counted in calendar periods, the
	 * longest a period lasts ({@link CalendarPeriods#longest()}), its idle timeout
	 * @param calendar the calendar periods counted in, or {@code null} for windows
	 * aligned on the epoch
	 */
	public FixedWindow {
		Validation.positive("limit", limit);
		Validation.positiveDuration("window", window);
		Validation.longestPeriod(window, calendar);
	}

	/**
	 * At most {@code limit} units per window of {@code window} aligned on the epoch.
	 */
	public FixedWindow(long limit, Duration window) {
		this(limit, window, null);
	}

	/**
	 * At most {@code limit} units per calendar period.
	 */
	public static FixedWindow inCalendar(long limit, CalendarPeriods calendar) {
		return new FixedWindow(limit, calendar.longest(), calendar);
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
		CalendarPeriods.putParameters(parameters, this.window, this.calendar);
		return parameters;
	}

	@Override
	public void start(StateWords state, long nowNanos) {
		setWindowIndex(state, indexAt(nowNanos));
		setCount(state, 0);
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
		long untilWindowEnd;
		if (this.calendar == null) {
			long windowNanos = Nanos.ofValidated(this.window);
			roll(state, nowNanos, windowNanos);
			untilWindowEnd = windowNanos - AlignedWindows.elapsed(windowIndex(state), nowNanos, windowNanos);
		}
		else {
			untilWindowEnd = rollPeriod(state, nowNanos, this.calendar);
		}
		long count = count(state);
		// A probe of nothing takes nothing: it is admitted even past the limit, and
		// describes it.
		boolean allowed = cost <= this.limit - count || cost == 0;
		long after = allowed ? count + cost : count;
		if (consume) {
			setCount(state, after);
		}
		// Every unit comes back at once, at the end of the window. A cost above the limit
		// never fits; the end of the window is still the earliest instant anything
		// changes.
		long reset = (after > 0 || !allowed) ? untilWindowEnd : 0;
		return new Decision(allowed, Math.max(0, this.limit - after), this.limit, reset,
				allowed ? 0 : untilWindowEnd);
	}

	@Override
	public void commit(StateWords state, long nowNanos, long cost) {
		setCount(state, rolledCount(state, nowNanos) + cost);
	}

	/**
	 * Taken off the count while the window they were counted in is still the current
	 * one; a later window never counted them.
	 */
	@Override
	public void refund(StateWords state, long nowNanos, long units, long consumedAtNanos) {
		long count = rolledCount(state, nowNanos);
		if (indexAt(consumedAtNanos) == windowIndex(state)) {
			setCount(state, Math.max(0, count - units));
		}
	}

	/**
	 * Counted in the current window, past the limit if need be.
	 */
	@Override
	public void charge(StateWords state, long nowNanos, long units) {
		commit(state, nowNanos, units);
	}

	@Override
	public Map<String, Number> describe(StateWords state, long nowNanos) {
		return Map.of("count", rolledCount(state, nowNanos));
	}

	/**
	 * In the same window, the count carries over, so a raised limit gives the client the
	 * difference at once and a lowered one leaves a client that already spent more with
	 * nothing left until its window moves on. A count past the old limit is a debt for
	 * units already let through: that debt stays past the new limit, but a lowered limit
	 * alone creates none: {@code min(count, limit + max(0, count - previousLimit))}.
	 * Another window, other calendar periods (another unit or zone), or another
	 * algorithm's state: fresh, as window indexes of another length mean nothing.
	 */
	@Override
	public void carryOver(Limit previous, StateWords from, StateWords to, long nowNanos) {
		if (previous instanceof FixedWindow old && old.window.equals(this.window)
				&& Objects.equals(old.calendar, this.calendar)) {
			long count = old.rolledCount(from, nowNanos);
			setWindowIndex(to, windowIndex(from));
			setCount(to, Math.min(count, this.limit + Math.max(0, count - old.limit)));
		}
	}

	/**
	 * The index of the window or calendar period {@code nowNanos} falls in.
	 */
	private long indexAt(long nowNanos) {
		return (this.calendar != null) ? this.calendar.index(nowNanos)
				: AlignedWindows.index(nowNanos, Nanos.ofValidated(this.window));
	}

	/**
	 * The count of the window or calendar period {@code nowNanos} falls in.
	 */
	private long rolledCount(StateWords state, long nowNanos) {
		if (this.calendar != null) {
			rollPeriod(state, nowNanos, this.calendar);
			return count(state);
		}
		return roll(state, nowNanos, Nanos.ofValidated(this.window));
	}

	/**
	 * Off the hot path of aligned windows: move to the calendar period {@code nowNanos}
	 * falls in, empty, when that is a later one.
	 * @return nanoseconds until the period counted ends, its whole length for a late
	 * reading, as for an aligned window
	 */
	private static long rollPeriod(StateWords state, long nowNanos, CalendarPeriods calendar) {
		if (!calendar.isCurrent(windowIndex(state), nowNanos)) {
			setWindowIndex(state, calendar.index(nowNanos));
			setCount(state, 0);
		}
		long index = windowIndex(state);
		return calendar.length(index) - calendar.elapsed(index, nowNanos);
	}

	/**
	 * The count of the window {@code nowNanos} falls in.
	 */
	private static long roll(StateWords state, long nowNanos, long windowNanos) {
		if (!AlignedWindows.isCurrent(windowIndex(state), nowNanos, windowNanos)) {
			rollToLater(state, nowNanos, windowNanos);
		}
		return count(state);
	}

	/**
	 * Off the hot path, so that a store's decision compiles small enough to be inlined
	 * (see {@link Decision}): move to the later window {@code nowNanos} falls in, empty.
	 */
	private static void rollToLater(StateWords state, long nowNanos, long windowNanos) {
		setWindowIndex(state, AlignedWindows.index(nowNanos, windowNanos));
		setCount(state, 0);
	}

	// The state's layout: the index of the window (or calendar period) counted, then the
	// units counted in it.

	private static long windowIndex(StateWords state) {
		return state.word0;
	}

	private static void setWindowIndex(StateWords state, long index) {
		state.word0 = index;
	}

	private static long count(StateWords state) {
		return state.word1;
	}

	private static void setCount(StateWords state, long count) {
		state.word1 = count;
	}

}
