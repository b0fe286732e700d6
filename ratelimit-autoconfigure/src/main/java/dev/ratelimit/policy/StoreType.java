package dev.ratelimit.policy;

import dev.ratelimit.support.ConfigName;

/**
 * Where a policy's buckets live, as configured by {@code ratelimit.store} or a
 * policy's own {@code store}.
 */
public enum StoreType implements ConfigName {

	/** This node's memory: fast, per-node limits. */
	CAFFEINE,

	/** One Redis-held counter per bucket: exact across a fleet. */
	REDIS,

	/** Local decisions reconciled with Redis in the background: eventually consistent. */
	HYBRID;

	/**
	 * The {@link dev.ratelimit.store.BucketDecider#name()} of the store that serves this type.
	 */
	public String storeName() {
		return configName();
	}

}
