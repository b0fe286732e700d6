package dev.ratelimit.web;

import java.util.List;
import java.util.function.Function;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.support.MonotonicClock;

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

	/**
	 * The quota policies, in draft-06 (section 3.2) and draft-11 (section 3) alike.
	 */
	String POLICY = "RateLimit-Policy";

	String DRAFT_11_RATE_LIMIT = "RateLimit";

	String X_LIMIT = "X-RateLimit-Limit";

	String X_REMAINING = "X-RateLimit-Remaining";

	String X_RESET = "X-RateLimit-Reset";

	/**
	 * Write the headers describing a verdict that consulted every limit of the tier.
	 */
	void write(HttpHeaders headers, Verdict verdict);


	/**
	 * @param clock the clock of the store that judges the limits, which tells the window
	 * of a limit counted in calendar periods: the current period's length
	 */
	static RateLimitHeaders of(HeaderStyle style, List<LimitDescription> limits, MonotonicClock clock) {
		switch (style) {
			case DRAFT_06:
				return draft06(limits, clock);
			case DRAFT_11:
				return draft11(limits, clock);
			case X_RATELIMIT:
				return xRateLimit(limits);
			case NONE:
				return (headers, verdict) -> {
				};
			default:
				throw new IllegalArgumentException("unhandled header style " + style);
		}
	}

	/**
	 * The three fields describe one limit: the one with the least remaining, as
	 * draft-06 section 4 requires ({@link Verdict#reported()}), of the "time windows"
	 * it speaks of. A limit of requests in flight has none: its quota cannot be a quota
	 * policy, which needs a window ({@code w}, section 2.1), nor have a
	 * {@code RateLimit-Reset} (section 3.3, the seconds until the window's quota
	 * resets), so the fields describe the tightest rate limit of the tier, and a tier of
	 * only such limits gets its limit and remaining without a reset or a policy.
	 */
	private static RateLimitHeaders draft06(List<LimitDescription> limits, MonotonicClock clock) {
		PolicyFieldValue policies = PolicyFieldValue.of(rateLimits(limits),
				(described) -> joined(described, LimitDescription::draft06Policy), clock);
		String[] quotas = quotas(limits);
		boolean[] inFlight = inFlight(limits);
		return (headers, verdict) -> {
			int index = reportedRateLimit(verdict, inFlight);
			Decision reported = verdict.decision(index);
			headers.set(DRAFT_06_LIMIT, quotas[index]);
			headers.set(DRAFT_06_REMAINING, HeaderNumbers.of(reported.remaining()));
			if (!inFlight[index]) {
				headers.set(DRAFT_06_RESET, HeaderNumbers.of(reported.resetSeconds()));
			}
			String policy = policies.value();
			if (!policy.isEmpty()) {
				headers.set(POLICY, policy);
			}
		};
	}

	/**
	 * The limit the three fields describe: the reported one, unless it counts requests
	 * in flight, then the first rate limit in report order; a tier of only such limits,
	 * the reported one.
	 */
	private static int reportedRateLimit(Verdict verdict, boolean[] inFlight) {
		int reported = verdict.reportedIndex();
		if (!inFlight[reported]) {
			return reported;
		}
		for (int index : verdict.reportOrder()) {
			if (!inFlight[index]) {
				return index;
			}
		}
		return reported;
	}

	private static boolean[] inFlight(List<LimitDescription> limits) {
		boolean[] inFlight = new boolean[limits.size()];
		for (int i = 0; i < inFlight.length; i++) {
			inFlight[i] = limits.get(i).inFlight();
		}
		return inFlight;
	}

	private static List<LimitDescription> rateLimits(List<LimitDescription> limits) {
		return limits.stream().filter((limit) -> !limit.inFlight()).toList();
	}

	/**
	 * {@code RateLimit} is a List of one item per limit (draft-11 section 4), each
	 * policy of {@code RateLimit-Policy} described; the reported limit first, so that a
	 * client reading only the first item reads the tightest.
	 */
	private static RateLimitHeaders draft11(List<LimitDescription> limits, MonotonicClock clock) {
		PolicyFieldValue policy = PolicyFieldValue.of(limits,
				(described) -> joined(described, LimitDescription::draft11Policy), clock);
		String[] prefixes = new String[limits.size()];
		for (int i = 0; i < prefixes.length; i++) {
			prefixes[i] = limits.get(i).quotedName() + ";r=";
		}
		boolean[] inFlight = inFlight(limits);
		return (headers, verdict) -> {
			headers.set(POLICY, policy.value());
			headers.set(DRAFT_11_RATE_LIMIT, serviceLimits(prefixes, inFlight, verdict));
		};
	}

	/**
	 * The service limit items, {@code "<name>";r=<remaining>;t=<reset seconds>}
	 * (draft-11 section 4.1). A limit of requests in flight has no reset: a slot frees
	 * when a request ends, which no clock tells, so its item leaves out the optional
	 * {@code t} (section 4.1.2).
	 */
	private static String serviceLimits(String[] prefixes, boolean[] inFlight, Verdict verdict) {
		if (prefixes.length == 1) {
			return serviceLimit(new StringBuilder(prefixes[0].length() + 24), prefixes[0], verdict.decision(0),
					inFlight[0])
				.toString();
		}
		StringBuilder items = new StringBuilder(prefixes.length * 40);
		for (int index : verdict.reportOrder()) {
			if (items.length() > 0) {
				items.append(", ");
			}
			serviceLimit(items, prefixes[index], verdict.decision(index), inFlight[index]);
		}
		return items.toString();
	}

	private static StringBuilder serviceLimit(StringBuilder items, String prefix, Decision decision,
			boolean inFlight) {
		items.append(prefix).append(decision.remaining());
		return inFlight ? items : items.append(";t=").append(decision.resetSeconds());
	}

	/**
	 * As draft-06's three fields: the tightest rate limit, a reset only for one.
	 */
	private static RateLimitHeaders xRateLimit(List<LimitDescription> limits) {
		String[] quotas = quotas(limits);
		boolean[] inFlight = inFlight(limits);
		return (headers, verdict) -> {
			int index = reportedRateLimit(verdict, inFlight);
			Decision reported = verdict.decision(index);
			headers.set(X_LIMIT, quotas[index]);
			headers.set(X_REMAINING, HeaderNumbers.of(reported.remaining()));
			if (!inFlight[index]) {
				headers.set(X_RESET, HeaderNumbers.of(reported.resetSeconds()));
			}
		};
	}

	private static String[] quotas(List<LimitDescription> limits) {
		String[] quotas = new String[limits.size()];
		for (int i = 0; i < quotas.length; i++) {
			quotas[i] = limits.get(i).quota();
		}
		return quotas;
	}

	private static String joined(List<LimitDescription> limits, Function<LimitDescription, String> item) {
		StringBuilder joined = new StringBuilder();
		for (LimitDescription limit : limits) {
			if (joined.length() > 0) {
				joined.append(", ");
			}
			joined.append(item.apply(limit));
		}
		return joined.toString();
	}

}
