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
	 * Combine the decisions of every limit of a tier, in the tier's order. Allowed
	 * when all allowed; then the limit reported is the one with the least remaining
	 * relative to its quota. Rejected otherwise; then the limit reported is the
	 * rejecting one that frees up last, and the retry-after is its: time only brings
	 * the other limits closer to admitting the request.
	 * @param decisions one decision per limit, at least one
	 * @return the verdict, never a fallback
	 */
	public static Verdict of(Decision[] decisions) {
		int reportedIndex = -1;
		boolean allowed = true;
		for (int i = 0; i < decisions.length; i++) {
			if (!decisions[i].allowed()) {
				if (allowed || decisions[i].retryAfterNanos() > decisions[reportedIndex].retryAfterNanos()) {
					reportedIndex = i;
				}
				allowed = false;
			}
			else if (allowed && (reportedIndex < 0 || closerToExhaustion(decisions[i], decisions[reportedIndex]))) {
				reportedIndex = i;
			}
		}
		Decision reported = decisions[reportedIndex];
		return new Verdict(allowed, reportedIndex, reported, allowed ? 0 : reported.retryAfterNanos(), false);
	}

	private static boolean closerToExhaustion(Decision candidate, Decision current) {
		return (double) candidate.remaining() / candidate.limit() < (double) current.remaining() / current.limit();
	}

	/**
	 * Seconds a rejected client should wait, rounded up and at least one.
	 */
	public long retryAfterSeconds() {
		return Math.max(1, Decision.ceilSeconds(this.retryAfterNanos));
	}

}
