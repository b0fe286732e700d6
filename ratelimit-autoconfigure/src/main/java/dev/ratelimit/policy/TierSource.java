package dev.ratelimit.policy;

/**
 * Where a request's tier comes from, as configured by {@code ratelimit.tiers}: its API
 * key always, and first, when configured, a header or a token claim. A request whose
 * source names no tier, or a tier a policy does not list, gets the default tier.
 */
public sealed interface TierSource {

	/**
	 * The tier of the request's API key ({@code ratelimit.tiers.api-keys}) only.
	 */
	record ApiKey() implements TierSource {

	}

	/**
	 * The value of a header that an upstream authentication service sets, else the API
	 * key's tier.
	 *
	 * @param headerName the header's name
	 */
	record Header(String headerName) implements TierSource {

	}

	/**
	 * A claim of the authenticated OAuth2 token (a JWT or an introspected opaque token),
	 * else the API key's tier.
	 *
	 * @param claimName the claim's name
	 */
	record Claim(String claimName) implements TierSource {

	}

}
