package dev.ratelimit.store.redis;

/**
 * Leased units a node gives back, with the Redis time they were leased at, so that
 * each algorithm takes them off the window or the bucket state that counted them.
 *
 * @param units units given back
 * @param leasedAtMicros the Redis time (microseconds) of the lease they came from
 */
public record Refund(long units, long leasedAtMicros) {

	/**
	 * Nothing to give back.
	 */
	public static final Refund NONE = new Refund(0, 0);

}
