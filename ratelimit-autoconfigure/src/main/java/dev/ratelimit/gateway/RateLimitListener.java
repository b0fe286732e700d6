package dev.ratelimit.gateway;

/**
 * Told of every decision the filter makes; metrics and the actuator's totals listen.
 * Called on the request path: implementations must be fast, allocation-free where
 * they can be, and never throw.
 */
@FunctionalInterface
public interface RateLimitListener {

	/**
	 * @param policy the policy id
	 * @param tier the tier the request was judged under
	 * @param routeId the route's id
	 * @param store the store's name
	 * @param outcome what the filter did
	 * @param decisionNanos time spent waiting for the store's verdict
	 */
	void onDecision(String policy, String tier, String routeId, String store, Outcome outcome, long decisionNanos);

}
