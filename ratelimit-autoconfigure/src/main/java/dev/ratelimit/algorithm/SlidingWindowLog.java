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

	@Override
	public Duration idleTimeout() {
		return this.window;
	}

	@Override
	public LimitState newState(long nowNanos) {
		return new State((int) this.limit, this.window.toNanos());
	}

	@Override
	public Map<String, Object> parameters() {
		Map<String, Object> parameters = new LinkedHashMap<>();
		parameters.put("limit", this.limit);
		parameters.put("window", this.window);
		return parameters;
	}

	private static final class State implements LimitState {

		private static final int INITIAL_CAPACITY = 8;

		private final int limit;

		private final long windowNanos;

		/**
		 * Admission instants, oldest first, in a ring starting at {@code head}; grown
		 * on demand up to {@code limit} so that a quiet client costs little.
		 */
		private long[] log;

		private int head;

		private int size;

		State(int limit, long windowNanos) {
			this.limit = limit;
			this.windowNanos = windowNanos;
			this.log = new long[Math.min(limit, INITIAL_CAPACITY)];
		}

		@Override
		public Decision probe(long nowNanos, long cost) {
			expire(nowNanos);
			if (cost <= this.limit - this.size) {
				long remaining = this.limit - this.size - cost;
				// A unit comes back when the oldest entry expires; the request's own
				// entries are the oldest when the log was empty.
				long reset = (this.size > 0) ? untilExpired(0, nowNanos) : (cost > 0) ? this.windowNanos : 0;
				return new Decision(true, remaining, this.limit, reset, 0);
			}
			// The request fits once the oldest (size + cost - limit) units have
			// expired; a cost above the limit never fits, so report when all have.
			long mustExpire = Math.min(this.size + cost - this.limit, this.size);
			return Decision.rejected(this.limit - this.size, this.limit,
					untilExpired((int) mustExpire - 1, nowNanos));
		}

		@Override
		public void commit(long nowNanos, long cost) {
			expire(nowNanos);
			long at = (this.size > 0) ? Math.max(nowNanos, entry(this.size - 1)) : nowNanos;
			ensureCapacity(this.size + (int) cost);
			for (long i = 0; i < cost; i++) {
				this.log[(this.head + this.size) % this.log.length] = at;
				this.size++;
			}
		}

		@Override
		public Map<String, Number> describe(long nowNanos) {
			expire(nowNanos);
			return Map.of("logSize", this.size);
		}

		private void expire(long nowNanos) {
			while (this.size > 0 && nowNanos - this.log[this.head] >= this.windowNanos) {
				this.head = (this.head + 1) % this.log.length;
				this.size--;
			}
		}

		/**
		 * Nanoseconds until the entry at {@code index} (0 = oldest) expires; 0 when
		 * there is no such entry.
		 */
		private long untilExpired(int index, long nowNanos) {
			if (index < 0) {
				return 0;
			}
			return Math.max(0, entry(index) + this.windowNanos - nowNanos);
		}

		private long entry(int index) {
			return this.log[(this.head + index) % this.log.length];
		}

		private void ensureCapacity(int required) {
			if (required <= this.log.length) {
				return;
			}
			int capacity = (int) Math.min(this.limit, Math.max(required, 2L * this.log.length));
			long[] grown = new long[capacity];
			for (int i = 0; i < this.size; i++) {
				grown[i] = entry(i);
			}
			this.log = grown;
			this.head = 0;
		}

	}

}
