package dev.ratelimit.algorithm;

/**
 * Windows aligned on multiples of the window's length on the clock's timeline, which
 * starts at the Unix epoch, as Redis time does in the Redis store's scripts: every store
 * and node shares the same windows. A window is known by its index; the limits counted
 * in such windows keep the index in their own state. A reading older than the current
 * window (a late caller) counts in the current window rather than reopening an old one.
 */
final class AlignedWindows {

	private AlignedWindows() {
	}

	/**
	 * The index of the window {@code nowNanos} falls in.
	 */
	static long index(long nowNanos, long windowNanos) {
		return Math.floorDiv(nowNanos, windowNanos);
	}

	/**
	 * Whether the window at {@code index} is still the one to count {@code nowNanos} in:
	 * the reading falls in it, or before it (a late reading). True on every call but one
	 * per window, and worked out with a multiplication and no division: the window's
	 * start, its index times its length, is never after the reading that set the index,
	 * so it does not overflow.
	 */
	static boolean isCurrent(long index, long nowNanos, long windowNanos) {
		return nowNanos - index * windowNanos < windowNanos;
	}

	/**
	 * Nanoseconds elapsed in the window at {@code index}, within {@code [0, window)}
	 * even for a late reading.
	 */
	static long elapsed(long index, long nowNanos, long windowNanos) {
		return Math.max(0, nowNanos - index * windowNanos);
	}

}
