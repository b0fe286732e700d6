package dev.ratelimit.web;

import java.util.List;

import org.springframework.http.HttpStatusCode;

/**
 * A request the rate limiter refuses, as a {@link RateLimitRejectionHandler} is told of
 * it. By the time a handler sees it, the response already carries the rate limit
 * headers and, when there is a retry-after, {@code Retry-After}.
 *
 * @param reason why the request is refused
 * @param status the status the default handler answers with: {@code 429} over a limit
 * or refused by a store's failure mode, the policy's missing-key status without a key,
 * {@code 400} for an invalid cost, {@code 503} when this node holds as many requests
 * as it may
 * @param detail a sentence for the client saying what happened, in English
 * @param retryAfterSeconds the seconds the client should wait, as written in
 * {@code Retry-After}; {@code 0} when the response has no {@code Retry-After} (no key,
 * invalid cost: waiting would not help)
 * @param violatedLimits the names of the refusing policy's limits that refused the
 * request, as in {@code RateLimit-Policy}; empty when none was consulted
 * @param policyId the id of the policy that refused the request (on a route of several
 * policies, the one that refused; for want of a place to hold it, the one holding it
 * longest)
 * @param tier the tier that policy judged the request under
 * @param routeId the id of the route: a gateway route's id, or a web route's
 */
public record RateLimitRejection(Reason reason, HttpStatusCode status, String detail, long retryAfterSeconds,
		List<String> violatedLimits, String policyId, String tier, String routeId) {

	public RateLimitRejection {
		violatedLimits = List.copyOf(violatedLimits);
	}

	/**
	 * This rejection answered with another status, for a handler that only changes the
	 * status and leaves the body to another handler.
	 */
	public RateLimitRejection withStatus(HttpStatusCode status) {
		return new RateLimitRejection(this.reason, status, this.detail, this.retryAfterSeconds, this.violatedLimits,
				this.policyId, this.tier, this.routeId);
	}

	/**
	 * Whether the store could not decide and its failure mode refused the request
	 * ({@code ratelimit.redis.on-failure: deny}, or {@code local} over the node's own
	 * limit): a service problem rather than the client's, which some APIs answer with
	 * {@code 503}.
	 */
	public boolean storeFailed() {
		return this.reason == Reason.STORE_FAILED;
	}

	/**
	 * Whether the request lacked the key its policy limits by, and its policy rejects
	 * such requests.
	 */
	public boolean missingKey() {
		return this.reason == Reason.MISSING_KEY;
	}

	/**
	 * Whether a limit would have held the request but this node holds as many as it may.
	 */
	public boolean holdsFull() {
		return this.reason == Reason.HOLDS_FULL;
	}

	/**
	 * Whether the client is blocked by its policy's penalty box, after a breach.
	 */
	public boolean blocked() {
		return this.reason == Reason.BLOCKED;
	}

	/**
	 * Why a request is refused.
	 */
	public enum Reason {

		/** A limit of the request's tier has no room for it. */
		LIMIT_EXCEEDED,

		/** The store failed and its failure mode refused the request. */
		STORE_FAILED,

		/** The request has no key and its policy rejects such requests. */
		MISSING_KEY,

		/**
		 * The request's cost is not a whole number from 1 to the most its tier's limits
		 * can ever admit.
		 */
		INVALID_COST,

		/**
		 * A limit would have held the request for shaping, but this node already holds
		 * as many as {@code ratelimit.shaping.max-held-requests} allows: the node's
		 * limit, not the client's quota, whose place was given back.
		 */
		HOLDS_FULL,

		/**
		 * The client is blocked by its policy's penalty box ({@code penalty}) after a
		 * breach, until the time {@code Retry-After} gives; no limit was consulted.
		 */
		BLOCKED

	}

}
