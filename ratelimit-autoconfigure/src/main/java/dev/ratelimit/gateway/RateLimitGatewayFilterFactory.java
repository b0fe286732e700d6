package dev.ratelimit.gateway;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import dev.ratelimit.gateway.RateLimitGatewayFilter.MissingKeyRejection;
import dev.ratelimit.gateway.RateLimitGatewayFilter.RouteSettings;
import dev.ratelimit.gateway.RateLimitGatewayFilter.TierPlan;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketStores;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;
import org.springframework.cloud.gateway.support.HasRouteId;
import org.springframework.cloud.gateway.support.NameUtils;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.codec.HttpMessageWriter;

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

	private final RateLimitPolicies policies;

	private final BucketStores stores;

	private final RateLimitListener[] listeners;

	private final BeanFactory beanFactory;

	private final HeaderStyle headerStyle;

	private final String apiKeyHeader;

	private final RateLimitProblemWriter problemWriter;

	private final ClientAddressResolver clientAddresses;

	private RateLimitMessages messages = RateLimitMessages.DEFAULTS;

	/**
	 * @param policies the validated policies
	 * @param stores the available stores; a policy uses the one named by its store type
	 * @param listeners told of every decision
	 * @param beanFactory where {@code "#{@beanName}"} key resolvers are looked up
	 * @param messageWriters the application's HTTP message writers, one of which must
	 * write {@code application/problem+json}
	 * @param headerStyle the rate limit headers to write
	 * @param apiKeyHeader the request header carrying the API key
	 * @param problemType the type of every 429's problem body, an absolute URI
	 */
	public RateLimitGatewayFilterFactory(RateLimitPolicies policies, BucketStores stores,
			List<RateLimitListener> listeners, BeanFactory beanFactory, List<HttpMessageWriter<?>> messageWriters,
			HeaderStyle headerStyle, String apiKeyHeader, URI problemType) {
		super(Config.class);
		this.policies = policies;
		this.stores = stores;
		this.listeners = listeners.toArray(new RateLimitListener[0]);
		this.beanFactory = beanFactory;
		this.headerStyle = headerStyle;
		this.apiKeyHeader = apiKeyHeader;
		this.problemWriter = new RateLimitProblemWriter(messageWriters, problemType);
		this.clientAddresses = new ClientAddressResolver(policies.trustedProxies());
	}

	/**
	 * Where the detail sentences of 429 bodies come from, read when a route is built;
	 * this starter's English sentences unless set.
	 */
	public void setMessages(RateLimitMessages messages) {
		this.messages = messages;
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
		RateLimitPolicy policy = requirePolicy(this.policies, config.getPolicy(), config.getRouteId());
		BucketDecider store = this.stores.decider(policy);
		Map<String, TierPlan> plans = plans(policy);
		TierPlan defaultPlan = plans.get(policy.defaultTier().name());
		String routeId = (config.getRouteId() != null) ? config.getRouteId() : policy.id();
		RouteSettings route = new RouteSettings(policy.id(), routeId, policy.shadow(), policy.cost(),
				this.apiKeyHeader);
		return new RateLimitGatewayFilter(route, store, this.policies.tiersByApiKey(), plans, defaultPlan,
				ClientKeyResolver.of(policy.key(), routeId, this.beanFactory, this.clientAddresses,
						policy.onMissingKey()),
				this.listeners, this.problemWriter, missingKeyRejection(policy));
	}

	/**
	 * A policy as a Spring Cloud Gateway {@code RateLimiter}, for
	 * {@code RequestRateLimiter} routes.
	 * @param policyId the id of a policy under {@code ratelimit.policies}
	 * @throws InvalidRateLimitConfigurationException when there is no such policy or
	 * its store is not available
	 */
	public PolicyRateLimiter rateLimiter(String policyId) {
		RateLimitPolicy policy = (policyId != null) ? this.policies.policy(policyId) : null;
		if (policy == null) {
			throw new InvalidRateLimitConfigurationException(List.of(new ConfigurationProblem(
					"rate limiter bean '" + policyId + PolicyRateLimiter.BEAN_NAME_SUFFIX + "'", policyId,
					unknownPolicyRule(this.policies))));
		}
		return new PolicyRateLimiter(policy, this.stores.decider(policy), this.policies.tiersByApiKey(),
				plans(policy), this.listeners);
	}

	private Map<String, TierPlan> plans(RateLimitPolicy policy) {
		Map<String, TierPlan> plans = new HashMap<>();
		for (Tier tier : policy.tiers().values()) {
			plans.put(tier.name(), plan(policy.id(), tier));
		}
		return plans;
	}

	private static MissingKeyRejection missingKeyRejection(RateLimitPolicy policy) {
		String lacking;
		if (policy.key() instanceof KeySource.Header header) {
			lacking = "the " + header.headerName() + " header";
		}
		else if (policy.key() instanceof KeySource.Principal) {
			lacking = "an authenticated principal";
		}
		else {
			lacking = "a client key";
		}
		return new MissingKeyRejection(HttpStatusCode.valueOf(policy.missingKeyStatus()),
				"This route is rate limited per client and needs " + lacking + " to tell clients apart; "
						+ "the request has none.");
	}

	/**
	 * The tier as the route serves it.
	 * @throws InvalidRateLimitConfigurationException when the headers could not describe
	 * it validly, for policies not built from {@code ratelimit.policies}, which checks
	 * the same at start-up
	 */
	private TierPlan plan(String policyId, Tier tier) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		RateLimitFieldRules.check(this.headerStyle, policyId, tier,
				"ratelimit.policies." + policyId + ".tiers." + tier.name(), problems);
		if (!problems.isEmpty()) {
			throw new InvalidRateLimitConfigurationException(problems);
		}
		List<LimitDescription> limits = new ArrayList<>(tier.limits().size());
		for (int i = 0; i < tier.limits().size(); i++) {
			limits.add(LimitDescription.of(policyId, tier, i, this.messages));
		}
		return new TierPlan(tier, limits.toArray(new LimitDescription[0]),
				RateLimitHeaders.of(this.headerStyle, limits));
	}

	/**
	 * The policy a route names.
	 * @throws InvalidRateLimitConfigurationException when there is no such policy
	 */
	static RateLimitPolicy requirePolicy(RateLimitPolicies policies, @Nullable String policyId,
			@Nullable String routeId) {
		RateLimitPolicy policy = (policyId != null) ? policies.policy(policyId) : null;
		if (policy == null) {
			throw new InvalidRateLimitConfigurationException(List.of(new ConfigurationProblem(
					"route '" + routeId + "' filter " + NAME + " argument " + POLICY_KEY, policyId,
					unknownPolicyRule(policies))));
		}
		return policy;
	}

	static String unknownPolicyRule(RateLimitPolicies policies) {
		return "must name a policy defined under ratelimit.policies (defined: "
				+ (policies.byId().isEmpty() ? "none" : new TreeSet<>(policies.byId().keySet())) + ")";
	}

	/**
	 * The policy id a gateway filter definition names, or {@code null} when it is not a
	 * {@code RateLimit} filter or names no policy. Accepts the shortcut
	 * ({@code RateLimit=orders}) and the long form ({@code args: { policy: orders }}).
	 */
	public static @Nullable String policyId(FilterDefinition definition) {
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

		private @Nullable String policy;

		private @Nullable String routeId;

		/**
		 * The id of the policy under {@code ratelimit.policies}.
		 */
		public @Nullable String getPolicy() {
			return this.policy;
		}

		public Config setPolicy(@Nullable String policy) {
			this.policy = policy;
			return this;
		}

		@Override
		public @Nullable String getRouteId() {
			return this.routeId;
		}

		@Override
		public void setRouteId(@Nullable String routeId) {
			this.routeId = routeId;
		}

	}

}
