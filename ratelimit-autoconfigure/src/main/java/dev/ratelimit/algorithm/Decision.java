package dev.ratelimit.algorithm;

/**
 * The outcome of one limit for one request.
 *
 * @param allowed whether the request fits in this limit
 * @param remaining whole units left after this request (after admitting it when
 * allowed), never negative
 * @param limit the quota of the limit: its limit or capacity
 * @param resetNanos nanoseconds until the quota is fully restored if no further
 * request comes
 * @param retryAfterNanos when rejected, nanoseconds until the request would fit;
 * {@code 0} when allowed
 */
public record Decision(boolean allowed, long remaining, long limit, long resetNanos, long retryAfterNanos) {

	private static final long NANOS_PER_SECOND = 1_000_000_000L;

	/**
	 * Seconds until the quota is fully restored, rounded up.
	 */
	public long resetSeconds() {
		return ceilSeconds(this.resetNanos);
	}

	/**
	 * Seconds a rejected client should wait, rounded up and at least one so that a
	 * client honouring it never retries too early.
	 */
	public long retryAfterSeconds() {
		return Math.max(1, ceilSeconds(this.retryAfterNanos));
	}

	static long ceilSeconds(long nanos) {
		if (nanos <= 0) {
			return 0;
		}
		return (nanos + NANOS_PER_SECOND - 1) / NANOS_PER_SECOND;
	}

}
