package dev.ratelimit.policy;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Every configured policy, validated at start-up, and how a request's API key maps
 * to its tier.
 *
 * @param byId the policies by id
 * @param tiersByApiKey the tier of each known API key
 * @param trustedProxies the proxies whose forwarding header names the client
 * @param tierSource where a request's tier comes from besides its API key
 */
public record RateLimitPolicies(Map<String, RateLimitPolicy> byId, Map<String, String> tiersByApiKey,
		TrustedProxies trustedProxies, TierSource tierSource) {

	public RateLimitPolicies {
		byId = Map.copyOf(byId);
		tiersByApiKey = Map.copyOf(tiersByApiKey);
	}

	/**
	 * Policies whose requests take their tier from their API key.
	 */
	public RateLimitPolicies(Map<String, RateLimitPolicy> byId, Map<String, String> tiersByApiKey,
			TrustedProxies trustedProxies) {
		this(byId, tiersByApiKey, trustedProxies, new TierSource.ApiKey());
	}

	/**
	 * Policies that trust no proxy: the client is the connection's remote address.
	 */
	public RateLimitPolicies(Map<String, RateLimitPolicy> byId, Map<String, String> tiersByApiKey) {
		this(byId, tiersByApiKey, TrustedProxies.NONE);
	}

	/**
	 * The policy with that id, or {@code null} when there is none.
	 */
	public @Nullable RateLimitPolicy policy(String id) {
		return this.byId.get(id);
	}

}
