package dev.ratelimit.store.redis;

import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;

/**
 * Policies for store tests.
 */
final class TestPolicies {

	private TestPolicies() {
	}

	static Tier tier(String name, Limit... limits) {
		return new Tier(name, List.of(limits));
	}

	/**
	 * A policy whose only tier is its default.
	 */
	static RateLimitPolicy policy(String id, StoreType store, Tier tier) {
		return new RateLimitPolicy(id, new KeySource.ClientIp(), false, 1, store, Map.of(tier.name(), tier), tier);
	}

}
