package dev.ratelimit.web;

/**
 * Told of every decision on the request path (the filters and the policies'
 * {@code RateLimiter} beans alike), of what settling an admitted request's exchange
 * changed (units charged or given back, a cost that could not be read, slots in flight
 * taken and given back), and of the penalty blocks breaches start; metrics and the
 * actuator's totals listen. On a route of several policies each policy reports its own
 * decisions; a request one policy refused is reported by that policy alone, the
 * policies decided before it (which give back what they took) reporting nothing of it,
 * so that what a policy reports as allowed went on. Called on the request path:
 * implementations must be fast, allocation-free where
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
	 * Units a request's exchange charged after its response (a counted response, a cost
	 * the upstream reported above the estimate), once the store has taken them. By
	 * default ignored.
	 * @param units the units charged, {@code 1} or more
	 */
	default void onCharged(String policy, String tier, String routeId, String store, long units) {
	}

	/**
	 * Units given back to a request's bucket once the store has taken them off: a cost
	 * the upstream reported below the estimate, or a held request that never went on. By
	 * default ignored.
	 * @param units the units given back, {@code 1} or more
	 */
	default void onRefunded(String policy, String tier, String routeId, String store, long units) {
	}

	/**
	 * A response whose cost could not be read: the estimate stands. By default ignored.
	 * @param reason why, as a tag value: a body's {@code not-found}, {@code not-a-number},
	 * {@code malformed}, {@code encoding}, {@code media-type} or {@code too-large}; a
	 * header's {@code header-missing} or {@code header-malformed}; a
	 * {@code ResponseCostResolver}'s {@code resolver-none}, {@code resolver-negative} or
	 * {@code resolver-failed}
	 */
	default void onUnreadableCost(String policy, String tier, String routeId, String store, String reason) {
	}

	/**
	 * A request admitted took a slot of its tier's in-flight limits. By default ignored.
	 */
	default void onSlotTaken(String policy, String tier, String routeId, String store) {
	}

	/**
	 * A request gave its slot back, its exchange having ended (or, held, never gone on):
	 * told when the release is sent to the store, exactly once per slot taken, so that
	 * taken minus released is what this node has in flight. By default ignored.
	 */
	default void onSlotReleased(String policy, String tier, String routeId, String store) {
	}

	/**
	 * A request's breach started a penalty block of its client's bucket. By default
	 * ignored.
	 * @param step the step of {@code block-for} the block serves, counted from 1
	 */
	default void onBlockStarted(String policy, String tier, String routeId, String store, int step) {
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

			@Override
			public void onCharged(long units) {
				RateLimitListener.this.onCharged(policy, tier, routeId, store, units);
			}

			@Override
			public void onRefunded(long units) {
				RateLimitListener.this.onRefunded(policy, tier, routeId, store, units);
			}

			@Override
			public void onUnreadableCost(String reason) {
				RateLimitListener.this.onUnreadableCost(policy, tier, routeId, store, reason);
			}

			@Override
			public void onSlotTaken() {
				RateLimitListener.this.onSlotTaken(policy, tier, routeId, store);
			}

			@Override
			public void onSlotReleased() {
				RateLimitListener.this.onSlotReleased(policy, tier, routeId, store);
			}

			@Override
			public void onBlockStarted(int step) {
				RateLimitListener.this.onBlockStarted(policy, tier, routeId, store, step);
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

		/**
		 * Units charged after the response; by default ignored.
		 * @see RateLimitListener#onCharged
		 */
		default void onCharged(long units) {
		}

		/**
		 * Units given back; by default ignored.
		 * @see RateLimitListener#onRefunded
		 */
		default void onRefunded(long units) {
		}

		/**
		 * A response whose cost could not be read; by default ignored.
		 * @see RateLimitListener#onUnreadableCost
		 */
		default void onUnreadableCost(String reason) {
		}

		/**
		 * A slot in flight taken; by default ignored.
		 * @see RateLimitListener#onSlotTaken
		 */
		default void onSlotTaken() {
		}

		/**
		 * A slot in flight given back; by default ignored.
		 * @see RateLimitListener#onSlotReleased
		 */
		default void onSlotReleased() {
		}

		/**
		 * A penalty block started; by default ignored.
		 * @see RateLimitListener#onBlockStarted
		 */
		default void onBlockStarted(int step) {
		}

	}

}
