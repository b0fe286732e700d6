package dev.ratelimit.algorithm;

/**
 * The outcome of one limit for one request.
 * <p>
 * Reset has one meaning in every algorithm: the time until this limit admits more than
 * {@code remaining} units, that is until its remaining count next goes up. It is the
 * "effective window" of draft-ietf-httpapi-ratelimit-headers-11 section 4.1.2 (the time
 * within which the client can use no more than the available quota), and so also the
 * reset of draft-06. A rejection's reset is its retry-after, so that a 429's reset and
 * its {@code Retry-After} reference the same instant (draft-06 section 4, draft-11
 * section 6).
 *
 * @param allowed whether the request fits in this limit
 * @param remaining whole units left after this request (after admitting it when
 * allowed), never negative
 * @param limit the quota of the limit: its limit or capacity
 * @param resetNanos nanoseconds until the limit admits more than {@code remaining}
 * units if no further request comes; {@code 0} when the whole quota is left; when
 * rejected, equal to {@code retryAfterNanos}
 * @param retryAfterNanos when rejected, nanoseconds until the request would fit;
 * {@code 0} when allowed
 */
public record Decision(boolean allowed, long remaining, long limit, long resetNanos, long retryAfterNanos) {

	private static final long NANOS_PER_SECOND = 1_000_000_000L;

	/**
	 * A rejection of a request that fits in {@code retryAfterNanos}: its reset is its
	 * retry-after.
	 */
	public static Decision rejected(long remaining, long limit, long retryAfterNanos) {
		return new Decision(false, remaining, limit, retryAfterNanos, retryAfterNanos);
	}

	/**
	 * Seconds until the limit admits more than {@code remaining}, rounded up, so that a
	 * client waiting that long never comes back too early.
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
