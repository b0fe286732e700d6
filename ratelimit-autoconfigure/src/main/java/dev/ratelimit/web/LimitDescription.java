package dev.ratelimit.web;

import dev.ratelimit.algorithm.CalendarPeriods;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Nanos;
import dev.ratelimit.policy.Tier;
import org.jspecify.annotations.Nullable;

/**
 * What clients are told about one limit, computed once per route so that a request
 * only copies ready-made strings.
 *
 * @param name the limit's name in draft-11 headers and 429 bodies: its configured name,
 * else {@code <policy>-<tier>-<n>}
 * @param quota the quota, as a header value
 * @param windowSeconds the window in whole seconds (at least one), as a header value; for
 * a limit counted in calendar periods, the longest period's, and the current period's
 * once {@link #at} has told it
 * @param detail the sentence of a 429 body, naming the limit
 * @param inFlight whether the limit counts requests in flight: its quota is a number of
 * concurrent requests, with no window and no reset
 * @param calendar the calendar periods the limit counts in, whose lengths differ, or
 * {@code null} for a limit of one window
 */
record LimitDescription(String name, String quota, String windowSeconds, String detail, boolean inFlight,
		@Nullable CalendarPeriods calendar) {

	static LimitDescription of(String policyId, Tier tier, int index) {
		return of(policyId, tier, index, RateLimitMessages.DEFAULTS);
	}

	static LimitDescription of(String policyId, Tier tier, int index, RateLimitMessages messages) {
		Limit limit = tier.limits().get(index);
		return new LimitDescription(tier.limitName(policyId, index), Long.toString(limit.quota()),
				windowSeconds(limit.window().toNanos()), messages.detail(limit), limit.countsInFlight(),
				limit.calendar());
	}

	/**
	 * The limit as clients are told at {@code nowNanos}: for a limit counted in calendar
	 * periods, with the window of the period {@code nowNanos} falls in. The window of
	 * draft-ietf-httpapi-ratelimit-headers-11 (section 3.1.3: the time window of the
	 * quota, in seconds) is then the current period's length, a February 28 days, a March
	 * 31, a day of a daylight-saving change 23 or 25 hours: the quota is what the client
	 * may spend in that period, and its reset is the period's end. The policy field so
	 * changes only when a period ends, staying the same over the responses within it, as
	 * section 3 would have it over a sequence of responses.
	 */
	LimitDescription at(long nowNanos) {
		if (this.calendar == null) {
			return this;
		}
		return new LimitDescription(this.name, this.quota,
				windowSeconds(this.calendar.length(this.calendar.index(nowNanos))), this.detail, this.inFlight,
				this.calendar);
	}

	/**
	 * A window is a non-zero Integer of seconds, with no sub-second precision
	 * (draft-ietf-httpapi-ratelimit-headers-11 section 3.1.3).
	 */
	private static String windowSeconds(long windowNanos) {
		return Long.toString(Math.max(1, Nanos.ceilSeconds(windowNanos)));
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
