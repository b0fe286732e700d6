package dev.ratelimit.store;

import java.util.Map;

/**
 * A store's health.
 *
 * @param up whether the store decides by itself (false: a failure mode is in force)
 * @param serving whether requests are served anyway: always while {@code up}, and while
 * a failure mode admits them or decides them on this node's own buckets; false while
 * requests are refused because the store cannot decide
 * @param details what an operator needs to know (store name, bucket count, remote
 * state, failure mode)
 */
public record StoreHealth(boolean up, boolean serving, Map<String, Object> details) {

	public StoreHealth {
		if (up && !serving) {
			throw new IllegalArgumentException("a store that decides by itself serves requests");
		}
	}

	/**
	 * The health of a store that serves requests exactly while it is {@code up}.
	 */
	public StoreHealth(boolean up, Map<String, Object> details) {
		this(up, up, details);
	}

}
