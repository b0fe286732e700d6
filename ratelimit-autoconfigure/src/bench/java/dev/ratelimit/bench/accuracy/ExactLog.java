package dev.ratelimit.bench.accuracy;

import java.util.ArrayDeque;

/**
 * The oracle: an exact sliding window log, written independently of ours. A request at
 * {@code t} is admitted when fewer than {@code limit} requests were admitted in
 * {@code (t - window, t]}.
 */
final class ExactLog {

	private final long limit;

	private final long windowNanos;

	private final ArrayDeque<Long> admitted = new ArrayDeque<>();

	ExactLog(long limit, long windowNanos) {
		this.limit = limit;
		this.windowNanos = windowNanos;
	}

	boolean tryAcquire(long nowNanos) {
		while (!this.admitted.isEmpty() && this.admitted.peekFirst() <= nowNanos - this.windowNanos) {
			this.admitted.pollFirst();
		}
		if (this.admitted.size() < this.limit) {
			this.admitted.addLast(nowNanos);
			return true;
		}
		return false;
	}

	/**
	 * The most of {@code instants} (sorted) that fall in any interval
	 * {@code (t - window, t]}.
	 */
	static long maxInAnyWindow(long[] instants, int count, long windowNanos) {
		long most = 0;
		int first = 0;
		for (int last = 0; last < count; last++) {
			while (instants[first] <= instants[last] - windowNanos) {
				first++;
			}
			most = Math.max(most, last - first + 1);
		}
		return most;
	}

}
