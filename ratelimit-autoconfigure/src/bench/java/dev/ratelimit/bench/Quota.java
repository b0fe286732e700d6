package dev.ratelimit.bench;

/**
 * How much a benchmarked limiter lets through, so that each workload measures the path
 * it names.
 */
public enum Quota {

	/**
	 * Admits every request a benchmark can send to one key: the decision on the common
	 * path, an existing client within its limit.
	 */
	OPEN_HOT,

	/**
	 * Admits every request a benchmark can send spread over many keys, and keeps idle
	 * keys for an hour, so that no key expires during a run.
	 */
	OPEN,

	/**
	 * Admits the first request of a key and rejects the rest for an hour: the path of a
	 * client over its limit.
	 */
	EXHAUSTED

}
