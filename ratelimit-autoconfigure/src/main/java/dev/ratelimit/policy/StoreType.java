package dev.ratelimit.policy;

/**
 * Where a policy's buckets live, as configured by {@code ratelimit.store} or a
 * policy's own {@code store}.
 */
public enum StoreType {

	/** This node's memory: fast, per-node limits. */
	CAFFEINE("caffeine"),

	/** One Redis-held counter per bucket: exact across a fleet. */
	REDIS("redis"),

	/** Local decisions reconciled with Redis in the background: eventually consistent. */
	HYBRID("hybrid");

	private final String storeName;

	StoreType(String storeName) {
		this.storeName = storeName;
	}

	/**
	 * The {@link dev.ratelimit.store.BucketDecider#name()} of the store that serves this type.
	 */
	public String storeName() {
		return this.storeName;
	}

}
