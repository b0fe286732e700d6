package dev.ratelimit.store;

/**
 * What an admitted request's exchange changes in its bucket once it is known, applied
 * to every limit of its tier in one atomic step: units charged beyond what its decision
 * took, or given back, and whether the exchange has ended, giving back its slot in
 * every limit that counts requests in flight.
 *
 * @param units positive: taken without judging (a counted response, a reported cost
 * above the estimate), the limits may go past their quota; negative: given back
 * (a reported cost below the estimate, a held request that never went on), where they
 * still count; {@code 0}: none
 * @param admittedNanosAgo how long before this settlement the request was decided, so
 * that given-back units come off where they were counted; {@code 0} or more
 * @param ended whether the exchange has ended (completed, failed, timed out or
 * cancelled): the request's slots come back, exactly once per admitted request
 * @param fallback whether a remote store's failure mode admitted the request (its
 * verdict was a {@linkplain dev.ratelimit.algorithm.Verdict#fallback() fallback}): the
 * store settles it where that failure mode decided (the local store of
 * {@code on-failure: local}), or not at all when no limit was consulted
 */
public record Settlement(long units, long admittedNanosAgo, boolean ended, boolean fallback) {

	public Settlement {
		if (admittedNanosAgo < 0) {
			throw new IllegalArgumentException("admittedNanosAgo must be 0 or more, was " + admittedNanosAgo);
		}
	}

	/**
	 * Give back the {@code cost} a held request took {@code heldNanos} ago and its slots:
	 * it never went on. A failure mode never holds, so the store itself admitted it.
	 */
	public static Settlement neverForwarded(long cost, long heldNanos) {
		return new Settlement(-cost, heldNanos, true, false);
	}

	/**
	 * Whether it changes nothing.
	 */
	public boolean empty() {
		return this.units == 0 && !this.ended;
	}

}
