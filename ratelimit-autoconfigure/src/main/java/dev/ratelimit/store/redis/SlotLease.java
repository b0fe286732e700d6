package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.UUID;

/**
 * Whose slots a store's calls take in the limits that count requests in flight, and for
 * how long: a node id of the store's own, random, so that two stores (two gateway nodes,
 * or two stores of one) never share a lease, and the lease, after which a slot the node
 * stopped renewing counts no more.
 *
 * @param node the id the script files this store's slots under
 * @param lease how long a slot lives unless renewed; positive
 */
record SlotLease(String node, Duration lease) {

	SlotLease {
		if (lease.isZero() || lease.isNegative()) {
			throw new IllegalArgumentException("ratelimit.redis.slot-lease-time must be positive but was " + lease);
		}
	}

	/**
	 * A lease under a new random node id.
	 */
	static SlotLease of(Duration lease) {
		return new SlotLease(UUID.randomUUID().toString(), lease);
	}

	/**
	 * The lease in whole milliseconds, at least one, as the script takes it.
	 */
	String leaseMillis() {
		return Long.toString(Math.max(1, this.lease.toMillis()));
	}

}
