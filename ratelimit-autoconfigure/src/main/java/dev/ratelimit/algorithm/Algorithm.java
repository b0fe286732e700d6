package dev.ratelimit.algorithm;

import dev.ratelimit.support.ConfigName;

/**
 * The five rate algorithms and the concurrency limit, named as in configuration, headers
 * and the actuator.
 */
public enum Algorithm implements ConfigName {

	FIXED_WINDOW,

	SLIDING_WINDOW_LOG,

	SLIDING_WINDOW_COUNTER,

	TOKEN_BUCKET,

	LEAKY_BUCKET,

	CONCURRENCY;

}
