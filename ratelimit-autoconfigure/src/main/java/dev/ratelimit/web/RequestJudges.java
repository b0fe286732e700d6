package dev.ratelimit.web;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.web.PolicyJudge.Lookups;
import dev.ratelimit.web.PolicyJudge.RouteSettings;
import dev.ratelimit.web.PolicyJudge.TierOnRoute;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatusCode;

/**
 * Builds the {@link RequestJudge} of each route, gateway route, web route or
 * {@code RateLimiter} bean alike, from the policies and everything the request path
 * needs: the stores, listeners, header style, rejection handler and how tiers and costs
 * are resolved.
 */
public final class RequestJudges {

	private final Supplier<RateLimitPolicies> policies;

	private final BucketStores stores;

	private final DecisionListeners listeners;

	private final HeaderStyle headerStyle;

	private final String apiKeyHeader;

	private final RateLimitRejectionHandler rejectionHandler;

	private final @Nullable TierResolver tierResolver;

	private final @Nullable CostResolver costResolver;

	private final RateLimitMessages messages;

	private final HeldRequests held;

	private final @Nullable ResponseCostResolver responseCostResolver;

	private final MonotonicClock clock;

	private final PenaltyVerdicts penalties;

	private final @Nullable DecisionObservations observations;

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
	 * @param held this node's places for requests held by shaping limits
	 * @param responseCostResolver the application's resolver of the costs responses
	 * report, for the policies whose {@code cost-from-response} is {@code resolver}, or
	 * {@code null}
	 */
	public RequestJudges(Supplier<RateLimitPolicies> policies, BucketStores stores, List<RateLimitListener> listeners,
			HeaderStyle headerStyle, String apiKeyHeader, RateLimitRejectionHandler rejectionHandler,
			@Nullable TierResolver tierResolver, @Nullable CostResolver costResolver, RateLimitMessages messages,
			HeldRequests held, @Nullable ResponseCostResolver responseCostResolver) {
		this(policies, stores, listeners, headerStyle, apiKeyHeader, rejectionHandler, tierResolver, costResolver,
				messages, held, responseCostResolver, MonotonicClock.SYSTEM);
	}

	/**
	 * Judges whose settlements tell the stores how long ago a request was decided on
	 * {@code clock}, the clock the in-memory store decides by, so that what is given back
	 * comes off where it was counted.
	 */
	public RequestJudges(Supplier<RateLimitPolicies> policies, BucketStores stores, List<RateLimitListener> listeners,
			HeaderStyle headerStyle, String apiKeyHeader, RateLimitRejectionHandler rejectionHandler,
			@Nullable TierResolver tierResolver, @Nullable CostResolver costResolver, RateLimitMessages messages,
			HeldRequests held, @Nullable ResponseCostResolver responseCostResolver, MonotonicClock clock) {
		this(policies, stores, listeners, headerStyle, apiKeyHeader, rejectionHandler, tierResolver, costResolver,
				messages, held, responseCostResolver, clock, ObservationRegistry.NOOP, null);
	}

	/**
	 * Judges whose policies' decisions are observed in {@code observationRegistry}
	 * ({@link RateLimitObservationDocumentation#POLICY_DECISIONS}), each as a child of
	 * its request's observation; with {@link ObservationRegistry#NOOP} nothing is
	 * observed, and nothing is done for it.
	 * @param observationConvention replaces
	 * {@link DefaultRateLimitDecisionObservationConvention}, or {@code null}
	 */
	public RequestJudges(Supplier<RateLimitPolicies> policies, BucketStores stores, List<RateLimitListener> listeners,
			HeaderStyle headerStyle, String apiKeyHeader, RateLimitRejectionHandler rejectionHandler,
			@Nullable TierResolver tierResolver, @Nullable CostResolver costResolver, RateLimitMessages messages,
			HeldRequests held, @Nullable ResponseCostResolver responseCostResolver, MonotonicClock clock,
			ObservationRegistry observationRegistry,
			@Nullable RateLimitDecisionObservationConvention observationConvention) {
		this.policies = policies;
		this.stores = stores;
		this.messages = messages;
		this.listeners = new DecisionListeners(listeners);
		this.headerStyle = headerStyle;
		this.apiKeyHeader = apiKeyHeader;
		this.rejectionHandler = rejectionHandler;
		this.tierResolver = tierResolver;
		this.costResolver = costResolver;
		this.held = held;
		this.responseCostResolver = responseCostResolver;
		this.clock = clock;
		this.penalties = new PenaltyVerdicts(messages);
		this.observations = DecisionObservations.of(observationRegistry, observationConvention);
	}

	/**
	 * Judges without a resolver of response costs.
	 */
	public RequestJudges(Supplier<RateLimitPolicies> policies, BucketStores stores, List<RateLimitListener> listeners,
			HeaderStyle headerStyle, String apiKeyHeader, RateLimitRejectionHandler rejectionHandler,
			@Nullable TierResolver tierResolver, @Nullable CostResolver costResolver, RateLimitMessages messages,
			HeldRequests held) {
		this(policies, stores, listeners, headerStyle, apiKeyHeader, rejectionHandler, tierResolver, costResolver,
				messages, held, null);
	}

	/**
	 * Judges of fixed policies.
	 */
	public RequestJudges(RateLimitPolicies policies, BucketStores stores, List<RateLimitListener> listeners,
			HeaderStyle headerStyle, String apiKeyHeader, RateLimitRejectionHandler rejectionHandler,
			@Nullable TierResolver tierResolver, @Nullable CostResolver costResolver, RateLimitMessages messages,
			HeldRequests held) {
		this(() -> policies, stores, listeners, headerStyle, apiKeyHeader, rejectionHandler, tierResolver,
				costResolver, messages, held);
	}

	/**
	 * The policies in force now.
	 */
	public RateLimitPolicies policies() {
		return this.policies.get();
	}

	/**
	 * The judge of a policy on one route, for a filter, built from one snapshot of the
	 * policies: never a mix of two reloads.
	 * @param policies the policies {@code policy} is one of
	 * @param routeId the route's id
	 * @param keyResolverBeans the gateway's {@code KeyResolver} beans; {@code null}
	 * without the gateway, where no policy may be keyed by one
	 * @throws InvalidRateLimitConfigurationException when the policy's store is not
	 * available or its headers could not describe a tier
	 */
	public RequestJudge forRoute(RateLimitPolicies policies, RateLimitPolicy policy, String routeId,
			@Nullable KeyResolverBeans keyResolverBeans) {
		return forRoute(policies, List.of(policy), routeId, keyResolverBeans);
	}

	/**
	 * The judge of several policies judging one route's requests together, all or
	 * nothing, for a filter, built from one snapshot of the policies: never a mix of two
	 * reloads.
	 * @param policies the policies {@code routePolicies} are of
	 * @param routePolicies the route's policies, in the order it names them: each once,
	 * at least one
	 * @param routeId the route's id
	 * @param keyResolverBeans the gateway's {@code KeyResolver} beans; {@code null}
	 * without the gateway, where no policy may be keyed by one
	 * @throws InvalidRateLimitConfigurationException when a policy's store is not
	 * available, its headers could not describe a tier, or the policies cannot be judged
	 * together ({@link PolicyCombination})
	 */
	public RequestJudge forRoute(RateLimitPolicies policies, List<RateLimitPolicy> routePolicies, String routeId,
			@Nullable KeyResolverBeans keyResolverBeans) {
		List<ConfigurationProblem> problems = PolicyCombination.problems(this.headerStyle, routePolicies,
				"route '" + routeId + "' policies", ids(routePolicies));
		if (!problems.isEmpty()) {
			throw new InvalidRateLimitConfigurationException(problems);
		}
		TierLookup tiers = (this.tierResolver != null) ? TierLookup.of(this.tierResolver)
				: TierLookup.of(policies.tierSource());
		ClientAddressResolver addresses = new ClientAddressResolver(policies.trustedProxies());
		List<PolicyJudge> judges = new ArrayList<>(routePolicies.size());
		int tierOrdinal = 0;
		for (RateLimitPolicy policy : routePolicies) {
			Lookups lookups = new Lookups(costs(policy),
					KeyLookup.of(policy.key(), routeId, keyResolverBeans, addresses, policy.onMissingKey()));
			judges.add(policyJudge(policy, routeId, lookups, addresses, tierOrdinal));
			tierOrdinal += policy.tiers().size();
		}
		return new RequestJudge(routeId, this.apiKeyHeader, policies.tiersByApiKey(), tiers, judges,
				this.headerStyle, this.rejectionHandler, this.held, this.observations);
	}

	/**
	 * The judge of a policy's {@code RateLimiter} bean on one route, which is given keys,
	 * not requests, and never sees the response.
	 * @throws InvalidRateLimitConfigurationException when the policy's store is not
	 * available or its headers could not describe a tier
	 * @throws IllegalStateException when the policy settles after the response or a tier
	 * limits requests in flight ({@link #judgesKeys})
	 */
	public RequestJudge forKeys(RateLimitPolicies policies, RateLimitPolicy policy, String routeId) {
		if (policy.scope().needsRequest()) {
			throw new IllegalStateException("Rate limit policy '" + policy.id() + "' applies to some methods or "
					+ "paths only, or exempts client addresses, which a RateLimiter bean never sees: Spring Cloud "
					+ "Gateway's RequestRateLimiter gives it only a key; use the RateLimit filter on route '"
					+ routeId + "' instead");
		}
		ClientAddressResolver addresses = new ClientAddressResolver(policies.trustedProxies());
		return new RequestJudge(routeId, this.apiKeyHeader, policies.tiersByApiKey(), null,
				List.of(policyJudge(policy, routeId, null, addresses, 0)), this.headerStyle, this.rejectionHandler,
				this.held, this.observations);
	}

	/**
	 * Whether a {@code RateLimiter} bean can judge the policy: not when it settles a
	 * request once its response is known ({@code count-responses},
	 * {@code cost-from-response}) or a tier limits requests in flight, since the bean
	 * never sees the response, nor when it applies to some methods or paths only or
	 * exempts client addresses, since the bean never sees the request.
	 */
	public static boolean judgesKeys(RateLimitPolicy policy) {
		if (policy.afterResponse().settles() || policy.scope().needsRequest()) {
			return false;
		}
		for (Tier tier : policy.tiers().values()) {
			if (SettlementPlan.countsInFlight(tier)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * One policy of a route's judge.
	 * @param lookups how the route reads a request's cost and key, {@code null} for a
	 * {@code RateLimiter} bean's judge
	 * @param tierOrdinal the place of the policy's first tier among every tier of the
	 * route's policies
	 */
	private PolicyJudge policyJudge(RateLimitPolicy policy, String routeId, @Nullable Lookups lookups,
			ClientAddressResolver addresses, int tierOrdinal) {
		BucketDecider store = PenaltyVerdicts.decider(this.stores.decider(policy), policy);
		RouteSettings route = new RouteSettings(policy.id(), routeId, policy.shadow(), policy.cost(),
				(this.costResolver != null) ? null : policy.costHeader(),
				HttpStatusCode.valueOf(policy.missingKeyStatus()), KeyParts.missingKeyDetail(policy.key()),
				policy.afterResponse(), new ScopeCheck(policy.scope(), addresses));
		Map<String, TierOnRoute> tiers = new HashMap<>();
		int ordinal = tierOrdinal;
		for (Map.Entry<String, JudgedTier> tier : tiers(policy, store.clock()).entrySet()) {
			tiers.put(tier.getKey(),
					new TierOnRoute(tier.getValue(),
							this.listeners.forRouteTier(policy.id(), tier.getKey(), routeId, store.name()),
							SettlementPlan.of(policy.id(), policy.afterResponse(), tier.getValue().tier(),
									this.responseCostResolver),
							ordinal++));
		}
		return new PolicyJudge(route, store, tiers, policy.defaultTier().name(), lookups, this.clock,
				this.penalties, this.observations);
	}

	private static List<String> ids(List<RateLimitPolicy> policies) {
		return policies.stream().map(RateLimitPolicy::id).toList();
	}

	/**
	 * Each tier of a policy as its routes judge it, by name.
	 * @throws InvalidRateLimitConfigurationException when the headers could not describe
	 * a tier
	 */
	private Map<String, JudgedTier> tiers(RateLimitPolicy policy, MonotonicClock clock) {
		Map<String, JudgedTier> tiers = new HashMap<>();
		for (Tier tier : policy.tiers().values()) {
			tiers.put(tier.name(), judged(policy.id(), tier, clock));
		}
		return tiers;
	}

	private CostLookup costs(RateLimitPolicy policy) {
		if (this.costResolver != null) {
			return CostLookup.of(this.costResolver, policy.id(), policy.cost());
		}
		if (policy.costHeader() != null) {
			return CostLookup.header(policy.costHeader(), policy.cost());
		}
		return CostLookup.fixed(policy.cost());
	}

	/**
	 * The tier as the route serves it.
	 * @throws InvalidRateLimitConfigurationException when the headers could not describe
	 * it validly, for policies not built from {@code ratelimit.policies}, which checks
	 * the same at start-up
	 */
	private JudgedTier judged(String policyId, Tier tier, MonotonicClock clock) {
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
		return JudgedTier.of(tier, limits, RateLimitHeaders.of(this.headerStyle, limits, clock));
	}

}
