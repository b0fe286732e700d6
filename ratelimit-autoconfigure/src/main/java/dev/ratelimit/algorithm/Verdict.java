package dev.ratelimit.algorithm;

/**
 * The outcome of all limits of a tier for one request: a request must pass every
 * limit.
 *
 * @param allowed whether every limit admitted the request (and so each consumed it)
 * @param reportedIndex index, in the tier's list of limits, of the limit reported to
 * the client: the one with the least remaining relative to its quota; {@code -1} when
 * no limit could be consulted
 * @param reported the decision of that limit, or {@code null} when no limit could be
 * consulted
 * @param retryAfterNanos when rejected, nanoseconds until every limit would admit the
 * request; {@code 0} when allowed
 * @param fallback whether the decision was made by a store's failure mode instead of
 * the store itself
 */
public record Verdict(boolean allowed, int reportedIndex, Decision reported, long retryAfterNanos, boolean fallback) {

	/**
	 * Seconds a rejected client should wait, rounded up and at least one.
	 */
	public long retryAfterSeconds() {
		return Math.max(1, Decision.ceilSeconds(this.retryAfterNanos));
	}

}
