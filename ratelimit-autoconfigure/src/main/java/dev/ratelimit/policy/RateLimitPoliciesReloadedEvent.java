package dev.ratelimit.policy;

import org.springframework.context.ApplicationEvent;

/**
 * Published when reloaded rate limit settings were validated and put in force, after
 * the gateway, if there is one, was asked to rebuild its routes: whatever holds
 * something built from the policies may rebuild it from {@link #getPolicies()}.
 */
public final class RateLimitPoliciesReloadedEvent extends ApplicationEvent {

	private final transient RateLimitPolicies policies;

	/**
	 * @param source the reloader
	 * @param policies the policies now in force
	 */
	public RateLimitPoliciesReloadedEvent(Object source, RateLimitPolicies policies) {
		super(source);
		this.policies = policies;
	}

	/**
	 * The policies now in force.
	 */
	public RateLimitPolicies getPolicies() {
		return this.policies;
	}

}
