package dev.ratelimit.store.redis;

import java.util.List;

import dev.ratelimit.e2e.KeyAndScopeGatewayScenarios;

/**
 * {@link KeyAndScopeGatewayScenarios} on an embedded Redis: composite keys, hostile
 * values among them, are escaped into Redis keys as any key is.
 */
class RedisKeyAndScopeGatewayTests extends KeyAndScopeGatewayScenarios {

	private TestRedis redis;

	@Override
	protected List<String> storeProperties() {
		if (this.redis == null) {
			this.redis = TestRedis.startEmbedded();
		}
		return this.redis.storeProperties();
	}

	@Override
	protected void stopStore() {
		this.redis.close();
	}

}
