package dev.ratelimit.algorithm;

/**
 * Limits counted in windows aligned on multiples of the window's length on the clock's
 * timeline, which starts at the Unix epoch, as Redis time does in the Redis store's
 * scripts: every store and node shares the same windows. The index of the window
 * counted is the state's first word. A reading older than the current window (a late
 * caller) counts in the current window rather than reopening an old one.
 */
final class AlignedWindows {

	/**
	 * {@link #roll} stayed in the window counted so far.
	 */
	static final int SAME = 0;

	/**
	 * {@link #roll} moved to the window directly after the one counted so far.
	 */
	static final int NEXT = 1;

	/**
	 * {@link #roll} moved to a window at least two after the one counted so far.
	 */
	static final int LATER = 2;

	private AlignedWindows() {
	}

	static void start(StateWords state, long nowNanos, long windowNanos) {
		state.word0 = Math.floorDiv(nowNanos, windowNanos);
	}

	/**
	 * Move to the window {@code nowNanos} falls in, when that is a later one. Staying in
	 * the same window, every call but one per window, costs a multiplication and no
	 * division: the window's start, its index times its length, is never after the
	 * reading that set the index, so it does not overflow.
	 * @return {@link #SAME}, {@link #NEXT} or {@link #LATER}
	 */
	static int roll(StateWords state, long nowNanos, long windowNanos) {
		if (nowNanos - state.word0 * windowNanos < windowNanos) {
			return SAME;
		}
		return rollToLater(state, nowNanos, windowNanos);
	}

	/**
	 * Off the hot path, so that a store's decision compiles small enough to be inlined
	 * (see {@link Decision}): move to the later window {@code nowNanos} falls in.
	 */
	private static int rollToLater(StateWords state, long nowNanos, long windowNanos) {
		long index = Math.floorDiv(nowNanos, windowNanos);
		int moved = (index == state.word0 + 1) ? NEXT : LATER;
		state.word0 = index;
		return moved;
	}

	/**
	 * Nanoseconds elapsed in the current window, within {@code [0, window)} even for a
	 * late reading.
	 */
	static long elapsed(StateWords state, long nowNanos, long windowNanos) {
		return Math.max(0, nowNanos - state.word0 * windowNanos);
	}

}
