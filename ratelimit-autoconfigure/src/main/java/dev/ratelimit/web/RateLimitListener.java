package dev.ratelimit.web;

/**
 * Told of every decision on the request path (the filters and the policies'
 * {@code RateLimiter} beans alike); metrics and the actuator's totals listen.
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
	 * @param outcome what was done with the request
	 * @param decisionNanos time spent waiting for the store's verdict
	 */
	void onDecision(String policy, String tier, String routeId, String store, Outcome outcome, long decisionNanos);

	/**
	 * A decision that holds the request, or would in a shadow policy: told with the
	 * hold. By default told as any decision, without it.
	 * @param delayNanos how long the request is held before it is forwarded
	 */
	default void onDelayed(String policy, String tier, String routeId, String store, Outcome outcome,
			long decisionNanos, long delayNanos) {
		onDecision(policy, tier, routeId, store, outcome, decisionNanos);
	}

	/**
	 * This listener for the decisions of one route under one tier of its policy, asked
	 * for once when the route is built, so that a listener can find what it records
	 * into once per route rather than once per request. By default each decision goes
	 * to {@link #onDecision(String, String, String, String, Outcome, long)}.
	 * @param policy the policy id
	 * @param tier the tier's name
	 * @param routeId the route's id
	 * @param store the store's name
	 * @return told of each decision of that route under that tier
	 */
	default RouteTierListener forRouteTier(String policy, String tier, String routeId, String store) {
		return new RouteTierListener() {

			@Override
			public void onDecision(Outcome outcome, long decisionNanos) {
				RateLimitListener.this.onDecision(policy, tier, routeId, store, outcome, decisionNanos);
			}

			@Override
			public void onDelayed(Outcome outcome, long decisionNanos, long delayNanos) {
				RateLimitListener.this.onDelayed(policy, tier, routeId, store, outcome, decisionNanos, delayNanos);
			}

		};
	}

	/**
	 * A {@link RateLimitListener} bound to one route and tier: told of every decision
	 * made there, under the same rules.
	 */
	@FunctionalInterface
	interface RouteTierListener {

		/**
		 * @param outcome what was done with the request
		 * @param decisionNanos time spent waiting for the store's verdict
		 */
		void onDecision(Outcome outcome, long decisionNanos);

		/**
		 * A decision that holds the request, or would in a shadow policy, with the hold;
		 * by default told as any decision.
		 * @param delayNanos how long the request is held before it is forwarded
		 */
		default void onDelayed(Outcome outcome, long decisionNanos, long delayNanos) {
			onDecision(outcome, decisionNanos);
		}

	}

}
