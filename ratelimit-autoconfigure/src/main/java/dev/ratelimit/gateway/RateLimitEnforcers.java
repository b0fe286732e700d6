package dev.ratelimit.gateway;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.ratelimit.gateway.ClientKeyResolver.KeyResolverBeans;
import dev.ratelimit.gateway.RateLimitEnforcer.Resolvers;
import dev.ratelimit.gateway.RateLimitEnforcer.RouteSettings;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketStores;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatusCode;

/**
 * Builds the {@link RateLimitEnforcer} of each route, gateway route or web route alike,
 * from the policies and everything a request path needs: the stores, listeners, header
 * style, rejection handler and how tiers and costs are resolved.
 */
public final class RateLimitEnforcers {

	private final Supplier<RateLimitPolicies> policies;

	private final BucketStores stores;

	private final DecisionListeners listeners;

	private final HeaderStyle headerStyle;

	private final String apiKeyHeader;

	private final RateLimitRejectionHandler rejectionHandler;

	private final @Nullable TierResolver tierResolver;

	private final @Nullable CostResolver costResolver;

	private final RateLimitMessages messages;

	/**
	 * @param policies the validated policies in force: each route is built from the
	 * snapshot in force when it is built, so that a live reload, which has the gateway
	 * rebuild its routes, applies to the next request
	 * @param stores the available stores; a policy uses the one named by its store type
	 * @param listeners told of every decision
	 * @param headerStyle the rate limit headers to write
	 * @param apiKeyHeader the request header carrying the API key
	 * @param rejectionHandler answers every refused request
	 * @param tierResolver the application's tier resolver, which replaces
	 * {@code ratelimit.tiers}' sources, or {@code null}
	 * @param costResolver the application's cost resolver, which replaces every policy's
	 * cost and cost header, or {@code null}
	 * @param messages where the detail sentences of 429 bodies come from
	 */
	public RateLimitEnforcers(Supplier<RateLimitPolicies> policies, BucketStores stores, List<RateLimitListener> listeners,
			HeaderStyle headerStyle, String apiKeyHeader, RateLimitRejectionHandler rejectionHandler,
			@Nullable TierResolver tierResolver, @Nullable CostResolver costResolver, RateLimitMessages messages) {
		this.policies = policies;
		this.stores = stores;
		this.messages = messages;
		this.listeners = new DecisionListeners(listeners);
		this.headerStyle = headerStyle;
		this.apiKeyHeader = apiKeyHeader;
		this.rejectionHandler = rejectionHandler;
		this.tierResolver = tierResolver;
		this.costResolver = costResolver;
	}

	/**
	 * Enforcers of fixed policies.
	 */
	public RateLimitEnforcers(RateLimitPolicies policies, BucketStores stores, List<RateLimitListener> listeners,
			HeaderStyle headerStyle, String apiKeyHeader, RateLimitRejectionHandler rejectionHandler,
			@Nullable TierResolver tierResolver, @Nullable CostResolver costResolver, RateLimitMessages messages) {
		this(() -> policies, stores, listeners, headerStyle, apiKeyHeader, rejectionHandler, tierResolver,
				costResolver, messages);
	}

	/**
	 * The policies in force now.
	 */
	RateLimitPolicies policies() {
		return this.policies.get();
	}

	/**
	 * The enforcer of a policy on one route.
	 * @param policy the policy
	 * @param routeId the route's id
	 * @param keyResolverBeans the gateway's {@code KeyResolver} beans; {@code null}
	 * without the gateway, where no policy may be keyed by one
	 * @throws InvalidRateLimitConfigurationException when the policy's store is not
	 * available or its headers could not describe a tier
	 */
	RateLimitEnforcer enforcer(RateLimitPolicy policy, String routeId, @Nullable KeyResolverBeans keyResolverBeans) {
		return enforcer(policies(), policy, routeId, keyResolverBeans);
	}

	/**
	 * The enforcer of a policy on one route, built from one snapshot of the policies:
	 * never a mix of two reloads.
	 * @param policies the policies {@code policy} is one of
	 */
	RateLimitEnforcer enforcer(RateLimitPolicies policies, RateLimitPolicy policy, String routeId,
			@Nullable KeyResolverBeans keyResolverBeans) {
		BucketDecider store = this.stores.decider(policy);
		Map<String, TierPlan> plans = plans(policy);
		RouteSettings route = new RouteSettings(policy.id(), routeId, policy.shadow(), this.apiKeyHeader,
				(this.costResolver != null) ? null : policy.costHeader(),
				HttpStatusCode.valueOf(policy.missingKeyStatus()), missingKeyDetail(policy));
		RequestTierResolver tiers = (this.tierResolver != null) ? RequestTierResolver.of(this.tierResolver)
				: RequestTierResolver.of(policies.tierSource());
		Resolvers resolvers = new Resolvers(tiers, costs(policy), ClientKeyResolver.of(policy.key(), routeId,
				keyResolverBeans, new ClientAddressResolver(policies.trustedProxies()), policy.onMissingKey()));
		return new RateLimitEnforcer(route, store, policies.tiersByApiKey(), plans,
				plans.get(policy.defaultTier().name()), resolvers, this.listeners, this.rejectionHandler);
	}

	/**
	 * The store that decides a policy's requests.
	 * @throws InvalidRateLimitConfigurationException when it is not available
	 */
	BucketDecider decider(RateLimitPolicy policy) {
		return this.stores.decider(policy);
	}

	DecisionListeners listeners() {
		return this.listeners;
	}

	/**
	 * Each tier of a policy as its routes serve it, by name.
	 * @throws InvalidRateLimitConfigurationException when the headers could not describe
	 * a tier
	 */
	Map<String, TierPlan> plans(RateLimitPolicy policy) {
		Map<String, TierPlan> plans = new HashMap<>();
		for (Tier tier : policy.tiers().values()) {
			plans.put(tier.name(), plan(policy.id(), tier));
		}
		return plans;
	}

	private RequestCostResolver costs(RateLimitPolicy policy) {
		if (this.costResolver != null) {
			return RequestCostResolver.of(this.costResolver, policy.id(), policy.cost());
		}
		if (policy.costHeader() != null) {
			return RequestCostResolver.header(policy.costHeader(), policy.cost());
		}
		return RequestCostResolver.fixed(policy.cost());
	}

	private static String missingKeyDetail(RateLimitPolicy policy) {
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
		return "This route is rate limited per client and needs " + lacking + " to tell clients apart; "
				+ "the request has none.";
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
		return TierPlan.of(tier, limits, RateLimitHeaders.of(this.headerStyle, limits));
	}

}
