package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Sliding window log: at most {@code limit} units in any window ending now, exact. A
 * unit admitted at {@code t} counts while {@code now < t + window}. Memory is
 * proportional to the units in the window: one primitive {@code long} per unit.
 * <p>
 * A {@linkplain #charge charge}, a cost known only after the response, is logged at
 * once whether the window has room or not: a window holding the limit or more refuses
 * every request until enough entries have expired. The log keeps the newest
 * {@code limit} entries only, however much is charged: the entries charged are the
 * newest, so the older ones beyond the limit expire first and, while any of them is in
 * the window, the newest {@code limit} are too. Every decision, its remaining and its
 * retry-after are the same as with all of them, at a memory bounded by the limit.
 */
public record SlidingWindowLog(long limit, Duration window) implements Limit {

	/**
	 * The largest limit whose log fits in one array.
	 */
	static final long MAXIMUM_LIMIT = Integer.MAX_VALUE - 8;

	private static final int INITIAL_CAPACITY = 8;

	public SlidingWindowLog {
		Validation.positive("limit", limit);
		if (limit > MAXIMUM_LIMIT) {
			throw new IllegalArgumentException("limit must be at most " + MAXIMUM_LIMIT
					+ " for sliding-window-log, which stores every unit, but was " + limit);
		}
		Validation.positiveDuration("window", window);
	}

	@Override
	public Algorithm algorithm() {
		return Algorithm.SLIDING_WINDOW_LOG;
	}

	@Override
	public long quota() {
		return this.limit;
	}

	/**
	 * The log's entries are kept in the state's extension.
	 */
	@Override
	public boolean keepsOnlyWords() {
		return false;
	}

	@Override
	public Map<String, Object> parameters() {
		Map<String, Object> parameters = new LinkedHashMap<>();
		parameters.put("limit", this.limit);
		parameters.put("window", this.window);
		return parameters;
	}

	/**
	 * The log starts small and grows on demand up to the limit, so that a quiet client
	 * costs little.
	 */
	@Override
	public void start(StateWords state, long nowNanos) {
		setHead(state, 0);
		setSize(state, 0);
		setLog(state, new long[(int) Math.min(this.limit, INITIAL_CAPACITY)]);
	}

	@Override
	public Decision probe(StateWords state, long nowNanos, long cost) {
		return judge(state, nowNanos, cost, false);
	}

	/**
	 * {@link #probe} and {@link #commit} in one pass: the log is expired once and the
	 * decision built at one site.
	 */
	@Override
	public Decision tryAcquire(StateWords state, long nowNanos, long cost) {
		return judge(state, nowNanos, cost, true);
	}

	/**
	 * The admission is the hot path and stays small, so that a store's decision compiles
	 * under the JIT's inlining limit with it (see {@link Decision}): rejecting, growing
	 * the log and appending several units happen in methods of their own.
	 */
	private Decision judge(StateWords state, long nowNanos, long cost, boolean consume) {
		long windowNanos = Nanos.ofValidated(this.window);
		long[] log = log(state);
		long untilOldestExpires = expire(state, log, nowNanos, windowNanos);
		int size = size(state);
		if (cost > this.limit - size) {
			return rejected(state, log, nowNanos, cost, windowNanos);
		}
		// A unit comes back when the oldest entry expires; the request's own entries are
		// the oldest when the log was empty.
		long reset = (size > 0 || cost > 0) ? untilOldestExpires : 0;
		Decision admitted = new Decision(true, this.limit - size - cost, this.limit, reset, 0);
		if (consume) {
			append(state, log, nowNanos, cost);
		}
		return admitted;
	}

	@Override
	public void commit(StateWords state, long nowNanos, long cost) {
		long[] log = log(state);
		expire(state, log, nowNanos, Nanos.ofValidated(this.window));
		append(state, log, nowNanos, cost);
	}

	/**
	 * The entries of the request leave the log: the newest of those at or before
	 * {@code consumedAtNanos}, the instant the request was admitted or shortly after,
	 * unless they expired meanwhile.
	 */
	@Override
	public void refund(StateWords state, long nowNanos, long units, long consumedAtNanos) {
		long[] log = log(state);
		expire(state, log, nowNanos, Nanos.ofValidated(this.window));
		int head = head(state);
		int size = size(state);
		int end = size;
		while (end > 0 && entry(log, head, end - 1) > consumedAtNanos) {
			end--;
		}
		int removed = (int) Math.min(units, end);
		for (int i = end - removed; i + removed < size; i++) {
			log[index(log, head, i)] = entry(log, head, i + removed);
		}
		setSize(state, size - removed);
	}

	/**
	 * The units are logged as an admission logs them, after the newest entry: the oldest
	 * entries beyond the limit are dropped first (see the class's description).
	 */
	@Override
	public void charge(StateWords state, long nowNanos, long units) {
		long[] log = log(state);
		expire(state, log, nowNanos, Nanos.ofValidated(this.window));
		int head = head(state);
		int size = size(state);
		// Taken before dropping, so that the log stays in order for a late reading.
		long at = (size > 0) ? Math.max(nowNanos, entry(log, head, size - 1)) : nowNanos;
		long logged = Math.min(units, this.limit);
		int dropped = (int) Math.min(size, Math.max(0, size + logged - this.limit));
		setHead(state, index(log, head, dropped));
		setSize(state, size - dropped);
		appendAny(state, log, at, logged);
	}

	@Override
	public Map<String, Number> describe(StateWords state, long nowNanos) {
		expire(state, log(state), nowNanos, Nanos.ofValidated(this.window));
		return Map.of("logSize", size(state));
	}

	/**
	 * The admission instants carry over, the most recent ones up to the new limit: they
	 * are instants on the clock, so they keep their meaning under another window too.
	 * Another algorithm's state: fresh.
	 */
	@Override
	public void carryOver(Limit previous, StateWords from, StateWords to, long nowNanos) {
		if (previous instanceof SlidingWindowLog old) {
			long[] log = log(from);
			expire(from, log, nowNanos, Nanos.ofValidated(old.window));
			int head = head(from);
			int size = size(from);
			int kept = (int) Math.min(size, this.limit);
			long[] carried = new long[(int) Math.max(kept, Math.min(this.limit, INITIAL_CAPACITY))];
			for (int i = 0; i < kept; i++) {
				carried[i] = entry(log, head, size - kept + i);
			}
			setHead(to, 0);
			setSize(to, kept);
			setLog(to, carried);
		}
	}

	/**
	 * Off the hot path: the rejection of {@code cost} units by {@code log}, expired to
	 * now.
	 */
	private Decision rejected(StateWords state, long[] log, long nowNanos, long cost, long windowNanos) {
		int size = size(state);
		// The request fits once the oldest (size + cost - limit) units have expired; a cost
		// above the limit never fits, so report when all have.
		long mustExpire = Math.min(size + cost - this.limit, size);
		return Decision.rejected(this.limit - size, this.limit,
				untilExpired(log, head(state), (int) mustExpire - 1, nowNanos, windowNanos));
	}

	/**
	 * Append {@code cost} units admitted at {@code nowNanos} to {@code log}, expired to
	 * now. An entry is never older than the newest before it, so that the log stays in
	 * order for a late reading. One unit into room already there, the usual request, is
	 * written here; anything else by {@link #appendAny}, so that the admission's
	 * compiled code stays small.
	 */
	private void append(StateWords state, long[] log, long nowNanos, long cost) {
		int size = size(state);
		if (cost != 1 || size == log.length) {
			appendAny(state, log, nowNanos, cost);
			return;
		}
		int tail = index(log, head(state), size);
		log[tail] = (size > 0) ? Math.max(nowNanos, log[(tail == 0) ? log.length - 1 : tail - 1]) : nowNanos;
		setSize(state, size + 1);
	}

	/**
	 * Off the hot path: {@link #append} of any number of units, growing the log when they
	 * do not fit.
	 */
	private void appendAny(StateWords state, long[] log, long nowNanos, long cost) {
		int size = size(state);
		long at = (size > 0) ? Math.max(nowNanos, entry(log, head(state), size - 1)) : nowNanos;
		if (size + cost > log.length) {
			log = grow(state, log, size + (int) cost);
		}
		int tail = index(log, head(state), size);
		for (long i = 0; i < cost; i++) {
			log[tail] = at;
			tail = (tail == log.length - 1) ? 0 : tail + 1;
		}
		setSize(state, size + (int) cost);
	}

	/**
	 * Drop the entries of {@code log} no longer in the window ending at
	 * {@code nowNanos}.
	 * @return nanoseconds until the oldest entry left expires, never negative; a window,
	 * the life of an entry admitted now, when none is left
	 */
	private static long expire(StateWords state, long[] log, long nowNanos, long windowNanos) {
		int head = head(state);
		int size = size(state);
		long untilOldestExpires = windowNanos;
		while (size > 0) {
			long age = nowNanos - log[head];
			if (age < windowNanos) {
				untilOldestExpires = Math.max(0, windowNanos - age);
				break;
			}
			head = (head == log.length - 1) ? 0 : head + 1;
			size--;
		}
		setHead(state, head);
		setSize(state, size);
		return untilOldestExpires;
	}

	/**
	 * Nanoseconds until the entry at {@code index} (0 = oldest) expires; 0 when there is
	 * no such entry.
	 */
	private static long untilExpired(long[] log, int head, int index, long nowNanos, long windowNanos) {
		if (index < 0) {
			return 0;
		}
		return Math.max(0, entry(log, head, index) + windowNanos - nowNanos);
	}

	private static long entry(long[] log, int head, int index) {
		return log[index(log, head, index)];
	}

	/**
	 * Where the entry at {@code index} (0 = oldest) of the ring starting at {@code head}
	 * is: a comparison rather than a remainder, which divides.
	 */
	private static int index(long[] log, int head, int index) {
		int untilEnd = log.length - head;
		return (index < untilEnd) ? head + index : index - untilEnd;
	}

	/**
	 * Off the hot path: a log that holds {@code required} entries, the entries kept
	 * oldest first from its start.
	 */
	private long[] grow(StateWords state, long[] log, int required) {
		int capacity = (int) Math.min(this.limit, Math.max(required, 2L * log.length));
		long[] grown = new long[capacity];
		int head = head(state);
		int size = size(state);
		for (int i = 0; i < size; i++) {
			grown[i] = entry(log, head, i);
		}
		setHead(state, 0);
		setLog(state, grown);
		return grown;
	}

	// The state's layout: where the ring's oldest entry is, then how many entries it
	// holds; the extension is the ring of admission instants, oldest first from the head.

	private static int head(StateWords state) {
		return (int) state.word0;
	}

	private static void setHead(StateWords state, int head) {
		state.word0 = head;
	}

	private static int size(StateWords state) {
		return (int) state.word1;
	}

	private static void setSize(StateWords state, int size) {
		state.word1 = size;
	}

	private static long[] log(StateWords state) {
		return (long[]) state.extension();
	}

	private static void setLog(StateWords state, long[] log) {
		state.extension(log);
	}

}
