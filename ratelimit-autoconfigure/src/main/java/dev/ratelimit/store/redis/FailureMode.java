package dev.ratelimit.store.redis;

/**
 * What a Redis-backed store decides when Redis cannot answer within the timeout, as
 * configured by {@code ratelimit.redis.on-failure}.
 */
public enum FailureMode {

	/** Fail open: admit the request, with no quota to report. */
	ALLOW("allow"),

	/** Fail closed: reject the request, asking the client to retry once the circuit breaker probes again. */
	DENY("deny"),

	/** Decide on this node's own Caffeine buckets until Redis is back. */
	LOCAL("local");

	private final String configName;

	FailureMode(String configName) {
		this.configName = configName;
	}

	/**
	 * The name used in configuration and in health details.
	 */
	public String configName() {
		return this.configName;
	}

}
