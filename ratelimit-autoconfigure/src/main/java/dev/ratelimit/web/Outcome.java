package dev.ratelimit.web;

import dev.ratelimit.algorithm.Verdict;

/**
 * What was done with a request, as tagged on metrics.
 */
public enum Outcome {

	ALLOWED("allowed"),

	/**
	 * Admitted by a shaping limit to be held, then forwarded when its place in the
	 * bucket comes (or given back, should its client go away first).
	 */
	DELAYED("delayed"),

	REJECTED("rejected"),

	/** Over the limit in a shadow policy: counted, reported, let through. */
	SHADOW_REJECTED("shadow-rejected"),

	/**
	 * Would have been held by a shaping limit of a shadow policy: counted, reported,
	 * forwarded at once.
	 */
	SHADOW_DELAYED("shadow-delayed"),

	/** The store failed and its failure mode decided. */
	ERROR("error"),

	/**
	 * The request had no key (no principal, no such header) and its policy rejects
	 * such requests: answered with the policy's missing-key status, no store asked.
	 */
	MISSING_KEY("missing-key"),

	/**
	 * The request's cost (its policy's cost header, or a {@code CostResolver}'s answer)
	 * is not one its tier could ever admit: answered with 400, no store asked.
	 */
	INVALID_COST("invalid-cost"),

	/**
	 * A shaping limit would have held the request, but this node holds as many as
	 * {@code ratelimit.shaping.max-held-requests} allows: answered with 503, its place
	 * given back.
	 */
	HOLDS_FULL("holds-full"),

	/**
	 * The client is exempt from the policy (its address, API key or tier): forwarded
	 * uncounted, without rate limit headers, no store asked.
	 */
	EXEMPT("exempt"),

	/**
	 * The client's bucket is blocked by its policy's penalty box after a breach: answered
	 * with 429 at once, no limit consulted.
	 */
	BLOCKED("blocked");

	private final String tagValue;

	Outcome(String tagValue) {
		this.tagValue = tagValue;
	}

	public String tagValue() {
		return this.tagValue;
	}

	/**
	 * What a store's verdict means for a request of a policy that is, or is not, in
	 * shadow mode.
	 */
	static Outcome of(Verdict verdict, boolean shadow) {
		if (verdict.fallback()) {
			return ERROR;
		}
		if (verdict.blocked()) {
			return BLOCKED;
		}
		if (verdict.allowed()) {
			if (verdict.delayNanos() > 0) {
				return shadow ? SHADOW_DELAYED : DELAYED;
			}
			return ALLOWED;
		}
		return shadow ? SHADOW_REJECTED : REJECTED;
	}

}
