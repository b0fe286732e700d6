package dev.ratelimit.web;

import dev.ratelimit.algorithm.Verdict;

/**
 * What was done with a request, as tagged on metrics.
 */
public enum Outcome {

	ALLOWED("allowed"),

	REJECTED("rejected"),

	/** Over the limit in a shadow policy: counted, reported, let through. */
	SHADOW_REJECTED("shadow-rejected"),

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
	INVALID_COST("invalid-cost");

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
		if (verdict.allowed()) {
			return ALLOWED;
		}
		return shadow ? SHADOW_REJECTED : REJECTED;
	}

}
