package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Sliding window log: at most {@code limit} units in any window ending now, exact. A
 * unit admitted at {@code t} counts while {@code now < t + window}. Memory is
 * proportional to the units in the window: one primitive {@code long} per unit.
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
	 * Words: the ring's head, then the number of entries. The extension holds the
	 * admission instants, oldest first, in a ring starting at the head; grown on demand
	 * up to the limit so that a quiet client costs little.
	 */
	@Override
	public void start(StateWords state, long nowNanos) {
		state.word0 = 0;
		state.word1 = 0;
		state.extension(new long[(int) Math.min(this.limit, INITIAL_CAPACITY)]);
	}

	@Override
	public Decision probe(StateWords state, long nowNanos, long cost) {
		long windowNanos = this.window.toNanos();
		long[] log = expire(state, nowNanos, windowNanos);
		int head = (int) state.word0;
		int size = (int) state.word1;
		boolean allowed = cost <= this.limit - size;
		long reset;
		if (allowed) {
			// A unit comes back when the oldest entry expires; the request's own entries
			// are the oldest when the log was empty.
			reset = (size > 0) ? untilExpired(log, head, 0, nowNanos, windowNanos) : (cost > 0) ? windowNanos : 0;
		}
		else {
			// The request fits once the oldest (size + cost - limit) units have expired;
			// a cost above the limit never fits, so report when all have.
			long mustExpire = Math.min(size + cost - this.limit, size);
			reset = untilExpired(log, head, (int) mustExpire - 1, nowNanos, windowNanos);
		}
		long remaining = this.limit - size - (allowed ? cost : 0);
		return new Decision(allowed, remaining, this.limit, reset, allowed ? 0 : reset);
	}

	@Override
	public void commit(StateWords state, long nowNanos, long cost) {
		long[] log = expire(state, nowNanos, this.window.toNanos());
		int size = (int) state.word1;
		long at = (size > 0) ? Math.max(nowNanos, entry(log, (int) state.word0, size - 1)) : nowNanos;
		log = ensureCapacity(state, log, size + (int) cost);
		int head = (int) state.word0;
		for (long i = 0; i < cost; i++) {
			log[(head + size) % log.length] = at;
			size++;
		}
		state.word1 = size;
	}

	@Override
	public Map<String, Number> describe(StateWords state, long nowNanos) {
		expire(state, nowNanos, this.window.toNanos());
		return Map.of("logSize", (int) state.word1);
	}

	/**
	 * Drop the entries no longer in the window ending at {@code nowNanos}.
	 * @return the log
	 */
	private static long[] expire(StateWords state, long nowNanos, long windowNanos) {
		long[] log = (long[]) state.extension();
		int head = (int) state.word0;
		int size = (int) state.word1;
		while (size > 0 && nowNanos - log[head] >= windowNanos) {
			head = (head + 1) % log.length;
			size--;
		}
		state.word0 = head;
		state.word1 = size;
		return log;
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

	/**
	 * Make {@code to}, a started state of this limit, hold the most recent entries of
	 * {@code from}, a log of another limit already expired to now, up to this limit.
	 */
	void carryEntries(StateWords from, StateWords to) {
		long[] log = (long[]) from.extension();
		int head = (int) from.word0;
		int size = (int) from.word1;
		int kept = (int) Math.min(size, this.limit);
		long[] carried = new long[(int) Math.max(kept, Math.min(this.limit, INITIAL_CAPACITY))];
		for (int i = 0; i < kept; i++) {
			carried[i] = entry(log, head, size - kept + i);
		}
		to.word0 = 0;
		to.word1 = kept;
		to.extension(carried);
	}

	private static long entry(long[] log, int head, int index) {
		return log[(head + index) % log.length];
	}

	private long[] ensureCapacity(StateWords state, long[] log, int required) {
		if (required <= log.length) {
			return log;
		}
		int capacity = (int) Math.min(this.limit, Math.max(required, 2L * log.length));
		long[] grown = new long[capacity];
		int head = (int) state.word0;
		int size = (int) state.word1;
		for (int i = 0; i < size; i++) {
			grown[i] = entry(log, head, i);
		}
		state.word0 = 0;
		state.extension(grown);
		return grown;
	}

}
