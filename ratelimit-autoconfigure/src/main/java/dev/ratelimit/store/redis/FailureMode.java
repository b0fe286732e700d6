package dev.ratelimit.store.redis;

import dev.ratelimit.support.ConfigName;

/**
 * What a Redis-backed store decides when Redis cannot answer within the timeout, as
 * configured by {@code ratelimit.redis.on-failure}.
 */
public enum FailureMode implements ConfigName {

	/** Fail open: admit the request, with no quota to report. */
	ALLOW,

	/** Fail closed: reject the request, asking the client to retry once the circuit breaker probes again. */
	DENY,

	/** Decide on this node's own Caffeine buckets until Redis is back. */
	LOCAL;

}
