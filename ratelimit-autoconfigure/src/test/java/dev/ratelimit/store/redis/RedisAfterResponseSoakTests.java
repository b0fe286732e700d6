package dev.ratelimit.store.redis;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.e2e.AfterResponseSoak;

/**
 * {@link AfterResponseSoak} on an embedded Redis: slots as leases, charges and refunds
 * in its scripts.
 */
class RedisAfterResponseSoakTests extends AfterResponseSoak {

	private final TestRedis redis = TestRedis.startEmbedded();

	@Override
	protected List<String> storeProperties() {
		// A Redis slow to answer on a busy machine would have requests decided by the
		// failure mode, which is not what this soak measures.
		List<String> properties = new ArrayList<>(this.redis.storeProperties());
		properties.add("ratelimit.redis.timeout=10s");
		return properties;
	}

	@Override
	protected void stopStore() {
		this.redis.close();
	}

}
