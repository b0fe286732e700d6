package dev.ratelimit.algorithm;

/**
 * State of a limit counted in windows aligned on multiples of the window's length on
 * the clock's timeline, which starts at the Unix epoch, as Redis time does in the Redis
 * store's scripts: every store and node shares the same windows. A reading older than
 * the current window (a late caller) counts in the current window rather than
 * reopening an old one.
 */
abstract class AlignedWindowState implements LimitState {

	final long limit;

	final long windowNanos;

	private long windowIndex;

	AlignedWindowState(long limit, long windowNanos, long nowNanos) {
		this.limit = limit;
		this.windowNanos = windowNanos;
		this.windowIndex = Math.floorDiv(nowNanos, windowNanos);
	}

	/**
	 * Move to the window {@code nowNanos} falls in, when that is a later one.
	 */
	final void roll(long nowNanos) {
		long index = Math.floorDiv(nowNanos, this.windowNanos);
		if (index > this.windowIndex) {
			startWindow(index == this.windowIndex + 1);
			this.windowIndex = index;
		}
	}

	/**
	 * A later window starts.
	 * @param adjacent whether it directly follows the window counted so far
	 */
	abstract void startWindow(boolean adjacent);

	/**
	 * Nanoseconds elapsed in the current window, within {@code [0, window)} even for a
	 * late reading.
	 */
	final long elapsed(long nowNanos) {
		return Math.max(0, nowNanos - this.windowIndex * this.windowNanos);
	}

	/**
	 * Nanoseconds until the current window ends, at most a window even for a late
	 * reading.
	 */
	final long untilWindowEnd(long nowNanos) {
		return this.windowNanos - elapsed(nowNanos);
	}

}
