package dev.ratelimit.web;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What an observation of one policy's decision knows: the policy, the tier the request
 * was judged under, the route and the store asked, and, once the store has answered,
 * the outcome. Never the client's key, whose cardinality is unbounded.
 */
public final class RateLimitDecisionObservationContext extends Observation.Context {

	private final String policy;

	private final String tier;

	private final String routeId;

	private final String store;

	private @Nullable Outcome outcome;

	public RateLimitDecisionObservationContext(String policy, String tier, String routeId, String store) {
		this.policy = policy;
		this.tier = tier;
		this.routeId = routeId;
		this.store = store;
	}

	/**
	 * The policy's id.
	 */
	public String getPolicy() {
		return this.policy;
	}

	/**
	 * The name of the tier the request was judged under.
	 */
	public String getTier() {
		return this.tier;
	}

	/**
	 * The route's id.
	 */
	public String getRouteId() {
		return this.routeId;
	}

	/**
	 * The store's name: {@code caffeine}, {@code redis} or {@code hybrid}.
	 */
	public String getStore() {
		return this.store;
	}

	/**
	 * What the store's verdict means for the request under this policy, {@code null}
	 * until the store has answered.
	 */
	public @Nullable Outcome getOutcome() {
		return this.outcome;
	}

	public void setOutcome(@Nullable Outcome outcome) {
		this.outcome = outcome;
	}

}
