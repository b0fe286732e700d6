package dev.ratelimit.policy;

import java.util.Map;

import dev.ratelimit.algorithm.Penalty;
import org.jspecify.annotations.Nullable;

/**
 * A named, validated policy: whose quota a request counts against and the limits of
 * each tier. Routes name it; every route naming it shares each client's quota.
 *
 * @param id the policy id, as in {@code ratelimit.policies}
 * @param key whose quota a request counts against
 * @param shadow whether decisions are counted and reported but never enforced
 * @param cost units one request consumes
 * @param store where the policy's buckets live
 * @param tiers the tiers by name
 * @param defaultTier the tier used for a tier name this policy does not list
 * @param onMissingKey what a request gets when its key yields nothing
 * @param missingKeyStatus the HTTP status of a request rejected for having no key, when
 * {@code onMissingKey} is {@link OnMissingKey#REJECT}
 * @param costHeader the request header that says what a request costs, trusted as an
 * upstream service sets it; {@code null} when every request costs {@code cost}
 * @param afterResponse what is settled once the response is known
 * @param scope which requests the policy applies to and which clients it exempts
 * @param penalty how a breach blocks the client; {@code null} when it does not
 */
public record RateLimitPolicy(String id, KeySource key, boolean shadow, long cost, StoreType store,
		Map<String, Tier> tiers, Tier defaultTier, OnMissingKey onMissingKey, int missingKeyStatus,
		String costHeader, AfterResponse afterResponse, RequestScope scope, @Nullable Penalty penalty) {

	/**
	 * The status of a request rejected for having no key, unless the policy chooses
	 * another.
	 */
	public static final int DEFAULT_MISSING_KEY_STATUS = 403;

	public RateLimitPolicy {
		tiers = Map.copyOf(tiers);
	}

	/**
	 * A policy that applies to every request, exempts no one and whose breaches block
	 * no client.
	 */
	public RateLimitPolicy(String id, KeySource key, boolean shadow, long cost, StoreType store,
			Map<String, Tier> tiers, Tier defaultTier, OnMissingKey onMissingKey, int missingKeyStatus,
			String costHeader, AfterResponse afterResponse) {
		this(id, key, shadow, cost, store, tiers, defaultTier, onMissingKey, missingKeyStatus, costHeader,
				afterResponse, RequestScope.EVERY_REQUEST, null);
	}

	/**
	 * A policy whose breaches block no client.
	 */
	public RateLimitPolicy(String id, KeySource key, boolean shadow, long cost, StoreType store,
			Map<String, Tier> tiers, Tier defaultTier, OnMissingKey onMissingKey, int missingKeyStatus,
			String costHeader, AfterResponse afterResponse, RequestScope scope) {
		this(id, key, shadow, cost, store, tiers, defaultTier, onMissingKey, missingKeyStatus, costHeader,
				afterResponse, scope, null);
	}

	/**
	 * A policy that applies to every request and exempts no one.
	 */
	public RateLimitPolicy(String id, KeySource key, boolean shadow, long cost, StoreType store,
			Map<String, Tier> tiers, Tier defaultTier, OnMissingKey onMissingKey, int missingKeyStatus,
			String costHeader, AfterResponse afterResponse, @Nullable Penalty penalty) {
		this(id, key, shadow, cost, store, tiers, defaultTier, onMissingKey, missingKeyStatus, costHeader,
				afterResponse, RequestScope.EVERY_REQUEST, penalty);
	}

	/**
	 * A policy whose cost is known before forwarding.
	 */
	public RateLimitPolicy(String id, KeySource key, boolean shadow, long cost, StoreType store,
			Map<String, Tier> tiers, Tier defaultTier, OnMissingKey onMissingKey, int missingKeyStatus,
			String costHeader) {
		this(id, key, shadow, cost, store, tiers, defaultTier, onMissingKey, missingKeyStatus, costHeader,
				AfterResponse.NONE);
	}

	/**
	 * A policy whose requests all cost {@code cost}.
	 */
	public RateLimitPolicy(String id, KeySource key, boolean shadow, long cost, StoreType store,
			Map<String, Tier> tiers, Tier defaultTier, OnMissingKey onMissingKey, int missingKeyStatus) {
		this(id, key, shadow, cost, store, tiers, defaultTier, onMissingKey, missingKeyStatus, null);
	}

	/**
	 * A policy whose requests without a key count against their client address.
	 */
	public RateLimitPolicy(String id, KeySource key, boolean shadow, long cost, StoreType store,
			Map<String, Tier> tiers, Tier defaultTier) {
		this(id, key, shadow, cost, store, tiers, defaultTier, OnMissingKey.CLIENT_ADDRESS,
				DEFAULT_MISSING_KEY_STATUS);
	}

}
