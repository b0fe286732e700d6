package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.e2e.SeveralPoliciesGatewayScenarios;

/**
 * {@link SeveralPoliciesGatewayScenarios} on an embedded Redis, its windows of a day on
 * Redis's own clock, and one policy of the {@code /mixed/**} route on the Caffeine
 * store: policies on two stores judged together.
 */
class RedisSeveralPoliciesGatewayTests extends SeveralPoliciesGatewayScenarios {

	private TestRedis redis;

	@Override
	protected List<String> storeProperties() {
		if (this.redis == null) {
			this.redis = TestRedis.startEmbedded();
		}
		return this.redis.storeProperties();
	}

	@Override
	protected Duration window() {
		return Duration.ofDays(1);
	}

	@Override
	protected void stopStore() {
		this.redis.close();
	}

}
