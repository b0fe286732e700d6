package dev.ratelimit.web;

import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Nanos;
import dev.ratelimit.policy.Tier;

/**
 * What clients are told about one limit, computed once per route so that a request
 * only copies ready-made strings.
 *
 * @param name the limit's name in draft-11 headers and 429 bodies: its configured name,
 * else {@code <policy>-<tier>-<n>}
 * @param quota the quota, as a header value
 * @param windowSeconds the window in whole seconds (at least one), as a header value
 * @param detail the sentence of a 429 body, naming the limit
 * @param inFlight whether the limit counts requests in flight: its quota is a number of
 * concurrent requests, with no window and no reset
 */
record LimitDescription(String name, String quota, String windowSeconds, String detail, boolean inFlight) {

	static LimitDescription of(String policyId, Tier tier, int index) {
		return of(policyId, tier, index, RateLimitMessages.DEFAULTS);
	}

	static LimitDescription of(String policyId, Tier tier, int index, RateLimitMessages messages) {
		Limit limit = tier.limits().get(index);
		// A window is a non-zero Integer of seconds, with no sub-second precision
		// (draft-ietf-httpapi-ratelimit-headers-11 section 3.1.3).
		long windowSeconds = Math.max(1, Nanos.ceilSeconds(limit.window().toNanos()));
		return new LimitDescription(tier.limitName(policyId, index), Long.toString(limit.quota()),
				Long.toString(windowSeconds), messages.detail(limit), limit.countsInFlight());
	}

	/**
	 * The draft-06 quota policy item: {@code <quota>;w=<window seconds>}
	 * (draft-ietf-httpapi-ratelimit-headers-06 section 2.1).
	 */
	String draft06Policy() {
		return this.quota + ";w=" + this.windowSeconds;
	}

	/**
	 * The draft-11 quota policy item: {@code "<name>";q=<quota>;w=<window seconds>}
	 * (draft-ietf-httpapi-ratelimit-headers-11 section 3.1); for a limit of requests in
	 * flight {@code "<name>";q=<limit>;qu="concurrent-requests"}, the quota unit of
	 * section 3.1.2, without the window, which is optional (section 3.1.3) and which
	 * such a quota does not have.
	 */
	String draft11Policy() {
		if (this.inFlight) {
			return quotedName() + ";q=" + this.quota + ";qu=\"concurrent-requests\"";
		}
		return quotedName() + ";q=" + this.quota + ";w=" + this.windowSeconds;
	}

	/**
	 * The name as a Structured Fields String: draft-11 requires the item of either field
	 * to be a String (sections 3 and 4.1).
	 */
	String quotedName() {
		return RateLimitFieldRules.string(this.name);
	}

}
