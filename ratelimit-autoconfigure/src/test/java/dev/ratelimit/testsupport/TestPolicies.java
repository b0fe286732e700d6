package dev.ratelimit.testsupport;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;

/**
 * Policies and tiers for tests. The ready-made ones: {@code orders} (api-key; anonymous 60 per minute, free a token
 * bucket of 10 at 2/s) and {@code search} (ip, shadow; anonymous 5 per second).
 */
public final class TestPolicies {

	private TestPolicies() {
	}

	public static Tier tier(String name, Limit... limits) {
		return new Tier(name, List.of(limits));
	}

	/**
	 * A policy keyed by client IP whose only tier is its default.
	 */
	public static RateLimitPolicy policy(String id, StoreType store, Tier tier) {
		return new RateLimitPolicy(id, new KeySource.ClientIp(), false, 1, store, Map.of(tier.name(), tier), tier);
	}

	public static RateLimitPolicies policies() {
		Tier anonymous = new Tier("anonymous", List.of(new FixedWindow(60, Duration.ofMinutes(1))));
		Tier free = new Tier("free", List.of(new TokenBucket(10, 2, Duration.ofSeconds(1)),
				new FixedWindow(10000, Duration.ofDays(1))));
		RateLimitPolicy orders = new RateLimitPolicy("orders", new KeySource.ApiKey(), false, 1, StoreType.CAFFEINE,
				Map.of("anonymous", anonymous, "free", free), anonymous);
		Tier searchAnonymous = new Tier("anonymous", List.of(new FixedWindow(5, Duration.ofMillis(1500))));
		RateLimitPolicy search = new RateLimitPolicy("search", new KeySource.ClientIp(), true, 2,
				StoreType.CAFFEINE, Map.of("anonymous", searchAnonymous), searchAnonymous);
		return new RateLimitPolicies(Map.of("orders", orders, "search", search), Map.of("demo-free-key", "free"));
	}

}
