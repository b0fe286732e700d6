package dev.ratelimit.gateway;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Supplier;

import dev.ratelimit.gateway.RateLimitGatewayFilter.MissingKeyRejection;
import dev.ratelimit.gateway.RateLimitGatewayFilter.RouteSettings;
import dev.ratelimit.gateway.RateLimitGatewayFilter.TierPlan;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketStore;

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

	private final Supplier<RateLimitPolicies> policies;

	private final List<BucketStore> stores;

	private final RateLimitListener[] listeners;

	private final BeanFactory beanFactory;

	private final HeaderStyle headerStyle;

	private final String apiKeyHeader;

	private final RateLimitProblemWriter problemWriter;

	/**
	 * @param policies the validated policies
	 * @param stores every available store; a policy uses the one named by its store type
	 * @param listeners told of every decision
	 * @param beanFactory where {@code "#{@beanName}"} key resolvers are looked up
	 * @param messageWriters the application's HTTP message writers, one of which must
	 * write {@code application/problem+json}
	 * @param headerStyle the rate limit headers to write
	 * @param apiKeyHeader the request header carrying the API key
	 * @param problemType the type of every 429's problem body, an absolute URI
	 */
	public RateLimitGatewayFilterFactory(RateLimitPolicies policies, List<BucketStore> stores,
			List<RateLimitListener> listeners, BeanFactory beanFactory, List<HttpMessageWriter<?>> messageWriters,
			HeaderStyle headerStyle, String apiKeyHeader, URI problemType) {
		this(() -> policies, stores, listeners, beanFactory, messageWriters, headerStyle, apiKeyHeader, problemType);
	}

	/**
	 * A factory building each route's filter from the policies in force when the route
	 * is built: a live reload puts new policies in force, then has the gateway rebuild
	 * its routes.
	 * @param policies the validated policies in force
	 * @see #RateLimitGatewayFilterFactory(RateLimitPolicies, List, List, BeanFactory,
	 * List, HeaderStyle, String, URI)
	 */
	public RateLimitGatewayFilterFactory(Supplier<RateLimitPolicies> policies, List<BucketStore> stores,
			List<RateLimitListener> listeners, BeanFactory beanFactory, List<HttpMessageWriter<?>> messageWriters,
			HeaderStyle headerStyle, String apiKeyHeader, URI problemType) {
		super(Config.class);
		this.policies = policies;
		this.stores = List.copyOf(stores);
		this.listeners = listeners.toArray(new RateLimitListener[0]);
		this.beanFactory = beanFactory;
		this.headerStyle = headerStyle;
		this.apiKeyHeader = apiKeyHeader;
		this.problemWriter = new RateLimitProblemWriter(messageWriters, problemType);
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
		RateLimitPolicies policies = this.policies.get();
		RateLimitPolicy policy = requirePolicy(policies, config.getPolicy(), config.getRouteId());
		BucketStore store = requireStore(policy, this.stores);
		Map<String, TierPlan> plans = new HashMap<>();
		for (Tier tier : policy.tiers().values()) {
			plans.put(tier.name(), plan(policy.id(), tier));
		}
		TierPlan defaultPlan = plans.get(policy.defaultTier().name());
		String routeId = (config.getRouteId() != null) ? config.getRouteId() : policy.id();
		RouteSettings route = new RouteSettings(policy.id(), routeId, policy.shadow(), policy.cost(),
				this.apiKeyHeader);
		return new RateLimitGatewayFilter(route, store, policies.tiersByApiKey(), plans, defaultPlan,
				ClientKeyResolver.of(policy.key(), routeId, this.beanFactory,
						new ClientAddressResolver(policies.trustedProxies()),
						policy.onMissingKey()),
				this.listeners, this.problemWriter, missingKeyRejection(policy));
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
			limits.add(LimitDescription.of(policyId, tier, i));
		}
		return new TierPlan(tier, limits.toArray(new LimitDescription[0]),
				RateLimitHeaders.of(this.headerStyle, limits));
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
		return "must name a policy defined under ratelimit.policies (defined: "
				+ (policies.byId().isEmpty() ? "none" : new TreeSet<>(policies.byId().keySet())) + ")";
	}

	/**
	 * The store a policy's buckets live in.
	 * @throws InvalidRateLimitConfigurationException when no such store is available
	 */
	static BucketStore requireStore(RateLimitPolicy policy, List<BucketStore> stores) {
		String wanted = policy.store().storeName();
		List<String> available = new ArrayList<>();
		for (BucketStore store : stores) {
			if (store.name().equals(wanted)) {
				return store;
			}
			available.add(store.name());
		}
		throw new InvalidRateLimitConfigurationException(List.of(missingStore(policy, available)));
	}

	static ConfigurationProblem missingStore(RateLimitPolicy policy, List<String> available) {
		return new ConfigurationProblem("ratelimit.policies." + policy.id() + ".store (or ratelimit.store)",
				policy.store().storeName(),
				"must name an available store (available: " + (available.isEmpty() ? "none" : available)
						+ "); the redis and hybrid stores need spring-boot-starter-data-redis-reactive and a"
						+ " reachable Redis (spring.data.redis.*), the caffeine store needs Caffeine on the classpath");
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
