package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

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
 * <p>
 * A {@linkplain #charge charge}, a cost known only after the response, is counted in
 * the current window whether the estimate has room or not: an estimate above the limit
 * refuses every request until it has fallen back.
 * <p>
 * Counted in {@linkplain CalendarPeriods calendar periods} instead
 * ({@link #inCalendar}), its windows are the periods, which differ in length (a month
 * lasts 28 to 31 days): the previous period's count is weighted by the fraction of the
 * current period not yet elapsed, {@code 1 - elapsed / length of the current period}, so
 * that it weighs fully as the period starts, nothing as it ends, and falls evenly in
 * between, as if its units came back spread over the current period rather than over
 * their own. The estimate then stays continuous across every boundary, whatever the two
 * periods' lengths, and a client that spent its quota at the end of one period gets it
 * back through the next, not at its first instant.
 */
public record SlidingWindowCounter(long limit, Duration window, @Nullable CalendarPeriods calendar) implements Limit {

	/**
	 * @param limit units per window
	 * @param window the window's length; for a limit counted in calendar periods, the
	 * longest a period lasts ({@link CalendarPeriods#longest()})
	 * @param calendar the calendar periods counted in, or {@code null} for windows
	 * aligned on the epoch
	 */
	public SlidingWindowCounter {
		Validation.positive("limit", limit);
		Validation.positiveDuration("window", window);
		Validation.longestPeriod(window, calendar);
	}

	/**
	 * At most {@code limit} units per window of {@code window} aligned on the epoch, as
	 * estimated.
	 */
	public SlidingWindowCounter(long limit, Duration window) {
		this(limit, window, null);
	}

	/**
	 * At most {@code limit} units per calendar period, as estimated.
	 */
	public static SlidingWindowCounter inCalendar(long limit, CalendarPeriods calendar) {
		return new SlidingWindowCounter(limit, calendar.longest(), calendar);
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
	 * Two windows (the longest two periods of a calendar): the previous window's count
	 * weighs on the estimate until the end of the window after it.
	 */
	@Override
	public Duration idleTimeout() {
		return this.window.multipliedBy(2);
	}

	/**
	 * The idle timeout, {@code 2 * window} (saturating), whatever the counts: past the
	 * limit or not, both are forgotten once the window after the current one has ended,
	 * within two windows of any use. Worked out without a {@link Duration}, as a cache
	 * asks it on every use.
	 */
	@Override
	public long idleNanos(StateWords state, long nowNanos) {
		long windowNanos = Nanos.ofValidated(this.window);
		return (windowNanos > Long.MAX_VALUE / 2) ? Long.MAX_VALUE : 2 * windowNanos;
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
		setCurrentCount(state, 0);
		setPreviousCount(state, 0);
	}

	@Override
	public Decision probe(StateWords state, long nowNanos, long cost) {
		return judge(state, nowNanos, cost, false);
	}

	/**
	 * {@link #probe} and {@link #commit} in one pass: the windows are rolled once and the
	 * decision built at one site.
	 */
	@Override
	public Decision tryAcquire(StateWords state, long nowNanos, long cost) {
		return judge(state, nowNanos, cost, true);
	}

	/**
	 * The admission is the hot path and stays small, so that a store's decision compiles
	 * under the JIT's inlining limit with it (see {@link Decision}): moving to a later
	 * window and rejecting happen in methods of their own. In calendar periods, the
	 * window's length is the current period's, and the next window's the next period's.
	 */
	private Decision judge(StateWords state, long nowNanos, long cost, boolean consume) {
		long windowNanos;
		long nextWindowNanos;
		long elapsed;
		if (this.calendar == null) {
			windowNanos = Nanos.ofValidated(this.window);
			nextWindowNanos = windowNanos;
			elapsed = roll(state, nowNanos, windowNanos);
		}
		else {
			elapsed = rollPeriod(state, nowNanos, this.calendar);
			windowNanos = this.calendar.length(windowIndex(state));
			nextWindowNanos = this.calendar.length(windowIndex(state) + 1);
		}
		long current = currentCount(state);
		long previous = previousCount(state);
		double estimate = current + previous * ((double) (windowNanos - elapsed) / windowNanos);
		// A probe of nothing takes nothing: it is admitted even past the limit, and
		// describes it.
		if (estimate + cost > this.limit + Nanos.UNIT_EPSILON && cost > 0) {
			return rejected(current, previous, estimate, elapsed, windowNanos, nextWindowNanos, cost);
		}
		long after = current + cost;
		if (consume) {
			setCurrentCount(state, after);
		}
		long remaining = Nanos.wholeUnits(this.limit - estimate - cost);
		// The estimate falls continuously: a unit comes back once one more than the
		// remaining fits.
		long reset = (remaining < this.limit)
				? untilFits(after, previous, remaining + 1, elapsed, windowNanos, nextWindowNanos) : 0;
		return new Decision(true, remaining, this.limit, reset, 0);
	}

	/**
	 * Off the hot path: the rejection of {@code cost} units, the windows rolled to now.
	 */
	private Decision rejected(long current, long previous, double estimate, long elapsed, long windowNanos,
			long nextWindowNanos, long cost) {
		// More units than the limit never fit; report when the estimate is 0.
		long retryAfter = (cost > this.limit) ? untilEmpty(current, previous, elapsed, windowNanos, nextWindowNanos)
				: untilFits(current, previous, cost, elapsed, windowNanos, nextWindowNanos);
		return Decision.rejected(Nanos.wholeUnits(this.limit - estimate), this.limit, retryAfter);
	}

	@Override
	public void commit(StateWords state, long nowNanos, long cost) {
		rolledElapsed(state, nowNanos);
		setCurrentCount(state, currentCount(state) + cost);
	}

	/**
	 * Taken off the count of the window they were counted in, the current or the
	 * previous one; an older window no longer weighs.
	 */
	@Override
	public void refund(StateWords state, long nowNanos, long units, long consumedAtNanos) {
		rolledElapsed(state, nowNanos);
		long consumedIn = indexAt(consumedAtNanos);
		if (consumedIn == windowIndex(state)) {
			setCurrentCount(state, Math.max(0, currentCount(state) - units));
		}
		else if (consumedIn == windowIndex(state) - 1) {
			setPreviousCount(state, Math.max(0, previousCount(state) - units));
		}
	}

	/**
	 * Counted in the current window, as an admission is, past the limit if need be.
	 */
	@Override
	public void charge(StateWords state, long nowNanos, long units) {
		commit(state, nowNanos, units);
	}

	@Override
	public Map<String, Number> describe(StateWords state, long nowNanos) {
		long elapsed = rolledElapsed(state, nowNanos);
		long windowNanos = windowLength(windowIndex(state));
		double estimate = currentCount(state) + previousCount(state) * ((double) (windowNanos - elapsed) / windowNanos);
		Map<String, Number> described = new LinkedHashMap<>();
		described.put("current", currentCount(state));
		described.put("previous", previousCount(state));
		described.put("estimate", Nanos.display(estimate));
		return described;
	}

	/**
	 * In the same window, the counts carry over as far as the estimate now may:
	 * {@code min(estimate, limit + max(0, estimate - previousLimit))}, as for
	 * {@link FixedWindow#carryOver}. A raised limit gives the client the difference at
	 * once; an estimate past the old limit is a debt for units already let through, which
	 * stays past the new limit; a lowered limit alone leaves the client with nothing left,
	 * not a debt (as counts each capped at the new limit would, the previous one still
	 * weighing). An estimate brought down loses units of the previous window first, then
	 * of the current one, rounded down to whole units: the units spent last are those
	 * kept. Another window, other calendar periods (another unit or zone), or another
	 * algorithm's state: fresh.
	 */
	@Override
	public void carryOver(Limit previous, StateWords from, StateWords to, long nowNanos) {
		if (previous instanceof SlidingWindowCounter old && old.window.equals(this.window)
				&& Objects.equals(old.calendar, this.calendar)) {
			long elapsed = old.rolledElapsed(from, nowNanos);
			long windowNanos = old.windowLength(windowIndex(from));
			double weight = (double) (windowNanos - elapsed) / windowNanos;
			long current = currentCount(from);
			long previousCount = previousCount(from);
			double estimate = current + previousCount * weight;
			double most = this.limit + Math.max(0, estimate - old.limit);
			setWindowIndex(to, windowIndex(from));
			if (estimate <= most + Nanos.UNIT_EPSILON) {
				setCurrentCount(to, current);
				setPreviousCount(to, previousCount);
			}
			else if (current >= most) {
				setCurrentCount(to, Nanos.wholeUnits(most));
				setPreviousCount(to, 0);
			}
			else {
				setCurrentCount(to, current);
				setPreviousCount(to, Math.min(previousCount, Nanos.wholeUnits((most - current) / weight)));
			}
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
	 * The length of the window or calendar period at {@code index}.
	 */
	private long windowLength(long index) {
		return (this.calendar != null) ? this.calendar.length(index) : Nanos.ofValidated(this.window);
	}

	/**
	 * Move to the window or calendar period {@code nowNanos} falls in, when that is a
	 * later one.
	 * @return nanoseconds elapsed in it
	 */
	private long rolledElapsed(StateWords state, long nowNanos) {
		return (this.calendar != null) ? rollPeriod(state, nowNanos, this.calendar)
				: roll(state, nowNanos, Nanos.ofValidated(this.window));
	}

	/**
	 * Off the hot path of aligned windows: move to the calendar period {@code nowNanos}
	 * falls in, when that is a later one, as {@link #rollToLater} does.
	 * @return nanoseconds elapsed in the period, as {@link CalendarPeriods#elapsed}
	 */
	private static long rollPeriod(StateWords state, long nowNanos, CalendarPeriods calendar) {
		if (!calendar.isCurrent(windowIndex(state), nowNanos)) {
			rollTo(state, calendar.index(nowNanos));
		}
		return calendar.elapsed(windowIndex(state), nowNanos);
	}

	/**
	 * Move to the window {@code nowNanos} falls in, when that is a later one.
	 * @return nanoseconds elapsed in the window, as {@link AlignedWindows#elapsed}
	 */
	private static long roll(StateWords state, long nowNanos, long windowNanos) {
		if (!AlignedWindows.isCurrent(windowIndex(state), nowNanos, windowNanos)) {
			rollToLater(state, nowNanos, windowNanos);
		}
		return AlignedWindows.elapsed(windowIndex(state), nowNanos, windowNanos);
	}

	/**
	 * Off the hot path (see {@link #judge}): move to the later window {@code nowNanos}
	 * falls in, as {@link #rollTo} does.
	 */
	private static void rollToLater(StateWords state, long nowNanos, long windowNanos) {
		rollTo(state, AlignedWindows.index(nowNanos, windowNanos));
	}

	/**
	 * Move to the later window at {@code index}: the current count becomes the previous
	 * one after one window, and both are forgotten after two.
	 */
	private static void rollTo(StateWords state, long index) {
		setPreviousCount(state, (index == windowIndex(state) + 1) ? currentCount(state) : 0);
		setCurrentCount(state, 0);
		setWindowIndex(state, index);
	}

	/**
	 * Nanoseconds until the estimate reaches 0 if idle: the previous window weighs
	 * until the end of the current one, the current until the end of the next.
	 */
	private static long untilEmpty(long current, long previous, long elapsed, long windowNanos,
			long nextWindowNanos) {
		long untilWindowEnd = windowNanos - elapsed;
		if (current > 0) {
			return untilWindowEnd + nextWindowNanos;
		}
		return (previous > 0) ? untilWindowEnd : 0;
	}

	/**
	 * Nanoseconds until {@code units}, at most the limit, fit, the current window holding
	 * {@code current}: the previous window's weight falls linearly through the current
	 * window, then the current count becomes the previous one and falls through the next
	 * window, of {@code nextWindowNanos}.
	 */
	private long untilFits(long current, long previous, long units, long elapsed, long windowNanos,
			long nextWindowNanos) {
		long untilWindowEnd = windowNanos - elapsed;
		double roomNow = this.limit - units - current;
		if (roomNow >= 0 && previous > 0) {
			// previous * (window - e) / window <= roomNow
			double atElapsed = windowNanos * (1 - roomNow / previous);
			return Math.max(1, Nanos.ceil(atElapsed - elapsed));
		}
		double roomNext = this.limit - units;
		if (current <= roomNext) {
			return untilWindowEnd;
		}
		double atElapsedNext = nextWindowNanos * (1 - roomNext / current);
		return untilWindowEnd + Nanos.ceil(atElapsedNext);
	}

	// The state's layout: the index of the current window (or calendar period), its count,
	// then the previous window's count.

	private static long windowIndex(StateWords state) {
		return state.word0;
	}

	private static void setWindowIndex(StateWords state, long index) {
		state.word0 = index;
	}

	private static long currentCount(StateWords state) {
		return state.word1;
	}

	private static void setCurrentCount(StateWords state, long count) {
		state.word1 = count;
	}

	private static long previousCount(StateWords state) {
		return state.word2;
	}

	private static void setPreviousCount(StateWords state, long count) {
		state.word2 = count;
	}

}
