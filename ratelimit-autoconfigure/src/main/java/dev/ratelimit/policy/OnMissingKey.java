package dev.ratelimit.policy;

import dev.ratelimit.support.ConfigName;

/**
 * What a request gets when its policy's key yields nothing: no authenticated
 * principal, no such header, a {@code KeyResolver} that yields nothing, a part of a
 * composite key missing.
 */
public enum OnMissingKey implements ConfigName {

	/**
	 * Counted against its client address's quota, so no request escapes limiting.
	 */
	CLIENT_ADDRESS,

	/**
	 * Answered with the policy's missing-key status, never forwarded.
	 */
	REJECT

}
