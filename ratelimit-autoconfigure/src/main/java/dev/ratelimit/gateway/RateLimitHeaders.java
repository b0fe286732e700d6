package dev.ratelimit.gateway;

import java.util.List;

import dev.ratelimit.algorithm.Decision;

import org.springframework.http.HttpHeaders;

/**
 * Writes the rate limit headers of one tier in one {@link HeaderStyle}. Everything that
 * does not depend on the request is computed when the route is built.
 */
@FunctionalInterface
interface RateLimitHeaders {

	String DRAFT_06_LIMIT = "RateLimit-Limit";

	String DRAFT_06_REMAINING = "RateLimit-Remaining";

	String DRAFT_06_RESET = "RateLimit-Reset";

	String DRAFT_06_POLICY = "X-RateLimit-Policy";

	String DRAFT_11_POLICY = "RateLimit-Policy";

	String DRAFT_11_RATE_LIMIT = "RateLimit";

	String X_LIMIT = "X-RateLimit-Limit";

	String X_REMAINING = "X-RateLimit-Remaining";

	String X_RESET = "X-RateLimit-Reset";

	/**
	 * Write the headers for a verdict that reports the limit at {@code reportedIndex}.
	 */
	void write(HttpHeaders headers, int reportedIndex, Decision reported);

	static RateLimitHeaders of(HeaderStyle style, List<LimitDescription> limits) {
		switch (style) {
			case DRAFT_06:
				return draft06(limits);
			case DRAFT_11:
				return draft11(limits);
			case X_RATELIMIT:
				return xRateLimit(limits);
			case NONE:
				return (headers, reportedIndex, reported) -> {
				};
			default:
				throw new IllegalArgumentException("unhandled header style " + style);
		}
	}

	private static RateLimitHeaders draft06(List<LimitDescription> limits) {
		String policy = joined(limits, false);
		String[] quotas = quotas(limits);
		return (headers, reportedIndex, reported) -> {
			headers.set(DRAFT_06_LIMIT, quotas[reportedIndex]);
			headers.set(DRAFT_06_REMAINING, Long.toString(reported.remaining()));
			headers.set(DRAFT_06_RESET, Long.toString(reported.resetSeconds()));
			headers.set(DRAFT_06_POLICY, policy);
		};
	}

	private static RateLimitHeaders draft11(List<LimitDescription> limits) {
		String policy = joined(limits, true);
		String[] prefixes = new String[limits.size()];
		for (int i = 0; i < prefixes.length; i++) {
			prefixes[i] = limits.get(i).quotedName() + ";r=";
		}
		return (headers, reportedIndex, reported) -> {
			headers.set(DRAFT_11_POLICY, policy);
			headers.set(DRAFT_11_RATE_LIMIT,
					prefixes[reportedIndex] + reported.remaining() + ";t=" + reported.resetSeconds());
		};
	}

	private static RateLimitHeaders xRateLimit(List<LimitDescription> limits) {
		String[] quotas = quotas(limits);
		return (headers, reportedIndex, reported) -> {
			headers.set(X_LIMIT, quotas[reportedIndex]);
			headers.set(X_REMAINING, Long.toString(reported.remaining()));
			headers.set(X_RESET, Long.toString(reported.resetSeconds()));
		};
	}

	private static String[] quotas(List<LimitDescription> limits) {
		String[] quotas = new String[limits.size()];
		for (int i = 0; i < quotas.length; i++) {
			quotas[i] = limits.get(i).quota();
		}
		return quotas;
	}

	private static String joined(List<LimitDescription> limits, boolean draft11) {
		StringBuilder joined = new StringBuilder();
		for (LimitDescription limit : limits) {
			if (joined.length() > 0) {
				joined.append(", ");
			}
			joined.append(draft11 ? limit.draft11Policy() : limit.draft06Policy());
		}
		return joined.toString();
	}

}
