package dev.ratelimit.gateway;

import java.math.BigDecimal;
import java.time.Duration;

import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.TokenBucket;
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
 */
record LimitDescription(String name, String quota, String windowSeconds, String detail) {

	private static final long NANOS_PER_SECOND = 1_000_000_000L;

	static LimitDescription of(String policyId, Tier tier, int index) {
		Limit limit = tier.limits().get(index);
		long windowNanos = limit.window().toNanos();
		// A window is a non-zero Integer of seconds, with no sub-second precision
		// (draft-ietf-httpapi-ratelimit-headers-11 section 3.1.3).
		long windowSeconds = Math.max(1, (windowNanos + NANOS_PER_SECOND - 1) / NANOS_PER_SECOND);
		return new LimitDescription(tier.limitName(policyId, index), Long.toString(limit.quota()),
				Long.toString(windowSeconds), "You have exceeded the rate limit of " + rate(limit) + ".");
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
	 * (draft-ietf-httpapi-ratelimit-headers-11 section 3.1).
	 */
	String draft11Policy() {
		return quotedName() + ";q=" + this.quota + ";w=" + this.windowSeconds;
	}

	/**
	 * The name as a Structured Fields String: draft-11 requires the item of either field
	 * to be a String (sections 3 and 4.1).
	 */
	String quotedName() {
		return RateLimitFieldRules.string(this.name);
	}

	static String rate(Limit limit) {
		if (limit instanceof TokenBucket bucket) {
			return requests(bucket.refillRate()) + " per " + period(bucket.refillPeriod()) + ", with bursts of up to "
					+ bucket.capacity();
		}
		if (limit instanceof LeakyBucket bucket) {
			return requests(bucket.drainRate()) + " per " + period(bucket.drainPeriod()) + ", with a queue of "
					+ bucket.capacity();
		}
		return requests(limit.quota()) + " per " + period(limit.window());
	}

	private static String requests(double amount) {
		String number = BigDecimal.valueOf(amount).stripTrailingZeros().toPlainString();
		return number + ((amount == 1) ? " request" : " requests");
	}

	/**
	 * A duration as English after "per": {@code second}, {@code 5 minutes},
	 * {@code 500 ms}.
	 */
	static String period(Duration duration) {
		long nanos = duration.toNanos();
		if (nanos % 1_000_000 != 0) {
			return count(nanos, "ns");
		}
		long millis = duration.toMillis();
		if (millis % 1000 != 0) {
			return count(millis, "ms");
		}
		long seconds = duration.toSeconds();
		if (seconds % 86_400 == 0) {
			return unit(seconds / 86_400, "day");
		}
		if (seconds % 3600 == 0) {
			return unit(seconds / 3600, "hour");
		}
		if (seconds % 60 == 0) {
			return unit(seconds / 60, "minute");
		}
		return unit(seconds, "second");
	}

	private static String unit(long amount, String unit) {
		return (amount == 1) ? unit : amount + " " + unit + "s";
	}

	private static String count(long amount, String unit) {
		return amount + " " + unit;
	}

}
