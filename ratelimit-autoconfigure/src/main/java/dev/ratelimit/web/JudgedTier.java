package dev.ratelimit.web;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import org.jspecify.annotations.Nullable;

/**
 * A policy's tier as the judge applies it ({@link dev.ratelimit.policy.Tier} being the
 * tier as configured): what clients are told of each limit, the header writer, and the
 * most one request may cost. Built once per policy snapshot, shared by its routes.
 *
 * @param tier the tier
 * @param limits what clients are told of each limit, in the tier's order
 * @param headers writes the tier's rate limit headers
 * @param maxCost the smallest quota of the tier's rate limits (a limit of requests in
 * flight counts requests, not units): a request costing more could never be admitted
 */
record JudgedTier(Tier tier, LimitDescription[] limits, RateLimitHeaders headers, long maxCost) {

	/**
	 * The detail of a rejection without any limit's decision: a store's failure mode
	 * refused the request.
	 */
	static final String UNCHECKED_DETAIL = "The rate limit could not be checked, so the request was refused; "
			+ "retry after the time given.";

	static JudgedTier of(Tier tier, List<LimitDescription> limits, RateLimitHeaders headers) {
		long maxCost = Long.MAX_VALUE;
		for (Limit limit : tier.limits()) {
			// A limit of requests in flight takes one slot whatever the cost.
			if (!limit.countsInFlight()) {
				maxCost = Math.min(maxCost, limit.quota());
			}
		}
		return new JudgedTier(tier, limits.toArray(new LimitDescription[0]), headers, maxCost);
	}

	/**
	 * Whether a request of that cost could ever be admitted: from 1 to
	 * {@link #maxCost()}.
	 */
	boolean admits(long cost) {
		return cost >= 1 && cost <= this.maxCost;
	}

	/**
	 * The sentence of a 429 body: the reported limit's, which is one that rejected.
	 */
	String detail(Verdict verdict) {
		return (verdict.limitCount() > 0) ? this.limits[verdict.reportedIndex()].detail() : UNCHECKED_DETAIL;
	}

	/**
	 * The names of the limits that rejected, as in {@code RateLimit-Policy}; none when a
	 * store's failure mode refused the request without consulting any.
	 */
	List<String> violatedPolicies(Verdict verdict) {
		List<String> names = new ArrayList<>(1);
		for (int i = 0; i < verdict.limitCount(); i++) {
			if (!verdict.decision(i).allowed()) {
				names.add(this.limits[i].name());
			}
		}
		return names;
	}

	/**
	 * The detail of a {@code 400} for a cost this tier could never admit.
	 * @param costHeader the policy's cost header, or {@code null} when the cost did not
	 * come from one
	 * @param headerValue the header's value, as the request had it
	 */
	String invalidCostDetail(@Nullable String costHeader, long cost, @Nullable String headerValue) {
		if (costHeader != null) {
			return "The " + costHeader + " header must be a whole number from 1 to " + this.maxCost
					+ ", the most one request may cost under this route's rate limit; it was '" + headerValue + "'.";
		}
		return "This request costs " + cost + " units, more than the " + this.maxCost
				+ " this route's rate limit can ever admit at once.";
	}

}
