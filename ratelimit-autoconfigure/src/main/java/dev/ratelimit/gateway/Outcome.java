package dev.ratelimit.gateway;

/**
 * What the filter did with a request, as tagged on metrics.
 */
public enum Outcome {

	ALLOWED("allowed"),

	REJECTED("rejected"),

	/** Over the limit in a shadow policy: counted, reported, let through. */
	SHADOW_REJECTED("shadow-rejected"),

	/** The store failed and its failure mode decided. */
	ERROR("error");

	private final String tagValue;

	Outcome(String tagValue) {
		this.tagValue = tagValue;
	}

	public String tagValue() {
		return this.tagValue;
	}

}
