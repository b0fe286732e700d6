package dev.ratelimit.actuate;

import dev.ratelimit.support.ConfigName;

/**
 * Whether the {@code ratelimits} endpoint shows client keys in bucket listings.
 */
public enum ShowKeys implements ConfigName {

	/** Show a short prefix and a stable hash of each key, never the key itself. */
	NEVER,

	/** Show every key as it is. */
	ALWAYS

}
