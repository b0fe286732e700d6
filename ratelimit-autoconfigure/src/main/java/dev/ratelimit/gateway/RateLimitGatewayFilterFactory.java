package dev.ratelimit.gateway;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.ratelimit.gateway.ClientKeyResolver.KeyResolverBeans;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.support.HasRouteId;
import org.springframework.cloud.gateway.support.NameUtils;

/**
 * The {@code RateLimit} gateway filter: limits a route by a policy of
 * {@code ratelimit.policies}, writes rate limit headers on every response and rejects
 * requests over the limit with 429 and a problem body, before they reach the upstream.
 * <p>
 * Shortcut form: {@code - RateLimit=orders}; long form: {@code name: RateLimit} with
 * {@code args: { policy: orders }}. Everything a request needs (policy, store, key
 * resolution, header values of each tier) is resolved when the route is built.
 */
public class RateLimitGatewayFilterFactory extends AbstractGatewayFilterFactory<RateLimitGatewayFilterFactory.Config> {

	/**
	 * The filter's name in route definitions.
	 */
	public static final String NAME = "RateLimit";

	/**
	 * The name of the argument that names the policy.
	 */
	public static final String POLICY_KEY = "policy";

	private final RateLimitEnforcers enforcers;

	private final KeyResolverBeans keyResolverBeans;

	/**
	 * @param enforcers builds each route's request path
	 * @param beanFactory where {@code "#{@beanName}"} key resolvers are looked up
	 */
	public RateLimitGatewayFilterFactory(RateLimitEnforcers enforcers, BeanFactory beanFactory) {
		super(Config.class);
		this.enforcers = enforcers;
		this.keyResolverBeans = gatewayKeyResolvers(beanFactory);
	}

	/**
	 * The gateway's {@code KeyResolver} beans, by name.
	 */
	static KeyResolverBeans gatewayKeyResolvers(BeanFactory beanFactory) {
		return (beanName) -> beanFactory.getBean(beanName, KeyResolver.class)::resolve;
	}

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public List<String> shortcutFieldOrder() {
		return List.of(POLICY_KEY);
	}

	@Override
	public GatewayFilter apply(Config config) {
		// One snapshot for everything the route resolves: never a mix of two reloads.
		RateLimitPolicies policies = this.enforcers.policies();
		RateLimitPolicy policy = requirePolicy(policies, config.getPolicy(), config.getRouteId());
		String routeId = (config.getRouteId() != null) ? config.getRouteId() : policy.id();
		return new RateLimitGatewayFilter(this.enforcers.enforcer(policies, policy, routeId, this.keyResolverBeans));
	}

	/**
	 * A policy as a Spring Cloud Gateway {@code RateLimiter}, for
	 * {@code RequestRateLimiter} routes.
	 * @param policyId the id of a policy under {@code ratelimit.policies}
	 * @throws InvalidRateLimitConfigurationException when there is no such policy or
	 * its store is not available
	 */
	public PolicyRateLimiter rateLimiter(String policyId) {
		RateLimitPolicies policies = this.enforcers.policies();
		RateLimitPolicy policy = (policyId != null) ? policies.policy(policyId) : null;
		if (policy == null) {
			throw new InvalidRateLimitConfigurationException(List.of(new ConfigurationProblem(
					"rate limiter bean '" + policyId + PolicyRateLimiter.BEAN_NAME_SUFFIX + "'", policyId,
					unknownPolicyRule(policies))));
		}
		// Built here, not by the enforcers, which must load without the gateway's classes.
		return new PolicyRateLimiter(this.enforcers, policies, policy);
	}

	/**
	 * The policy a route names.
	 * @throws InvalidRateLimitConfigurationException when there is no such policy
	 */
	static RateLimitPolicy requirePolicy(RateLimitPolicies policies, String policyId, String routeId) {
		RateLimitPolicy policy = (policyId != null) ? policies.policy(policyId) : null;
		if (policy == null) {
			throw new InvalidRateLimitConfigurationException(List.of(new ConfigurationProblem(
					"route '" + routeId + "' filter " + NAME + " argument " + POLICY_KEY, policyId,
					unknownPolicyRule(policies))));
		}
		return policy;
	}

	static String unknownPolicyRule(RateLimitPolicies policies) {
		return unknownPolicyRule(policies.byId().keySet());
	}

	static String unknownPolicyRule(Set<String> policyIds) {
		return "must name a policy defined under ratelimit.policies (defined: "
				+ (policyIds.isEmpty() ? "none" : new TreeSet<>(policyIds)) + ")";
	}

	/**
	 * The policy id a gateway filter definition names, or {@code null} when it is not a
	 * {@code RateLimit} filter or names no policy. Accepts the shortcut
	 * ({@code RateLimit=orders}) and the long form ({@code args: { policy: orders }}).
	 */
	public static String policyId(FilterDefinition definition) {
		if (!NAME.equals(definition.getName())) {
			return null;
		}
		Map<String, String> args = definition.getArgs();
		String policy = args.get(POLICY_KEY);
		return (policy != null) ? policy : args.get(NameUtils.generateName(0));
	}

	/**
	 * Configuration of one route's RateLimit filter.
	 */
	public static class Config implements HasRouteId {

		private String policy;

		private String routeId;

		/**
		 * The id of the policy under {@code ratelimit.policies}.
		 */
		public String getPolicy() {
			return this.policy;
		}

		public Config setPolicy(String policy) {
			this.policy = policy;
			return this;
		}

		@Override
		public String getRouteId() {
			return this.routeId;
		}

		@Override
		public void setRouteId(String routeId) {
			this.routeId = routeId;
		}

	}

}
