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
import dev.ratelimit.web.RequestJudge.Lookups;
import dev.ratelimit.web.RequestJudge.RouteSettings;
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

	private final PenaltyVerdicts penalties;

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
		this.penalties = new PenaltyVerdicts(messages);
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
		TierLookup tiers = (this.tierResolver != null) ? TierLookup.of(this.tierResolver)
				: TierLookup.of(policies.tierSource());
		Lookups lookups = new Lookups(tiers, costs(policy), KeyLookup.of(policy.key(), routeId, keyResolverBeans,
				new ClientAddressResolver(policies.trustedProxies()), policy.onMissingKey()));
		return judge(policies, policy, routeId, lookups);
	}

	/**
	 * The judge of a policy's {@code RateLimiter} bean on one route, which is given keys,
	 * not requests, and never sees the response.
	 * @throws InvalidRateLimitConfigurationException when the policy's store is not
	 * available or its headers could not describe a tier
	 * @throws IllegalStateException when the policy settles after the response, a tier
	 * limits requests in flight, or the policy applies to some methods or paths only or
	 * exempts client addresses ({@link #judgesKeys})
	 */
	public RequestJudge forKeys(RateLimitPolicies policies, RateLimitPolicy policy, String routeId) {
		if (policy.scope().needsRequest()) {
			throw new IllegalStateException("Rate limit policy '" + policy.id() + "' applies to some methods or "
					+ "paths only, or exempts client addresses, which a RateLimiter bean never sees: Spring Cloud "
					+ "Gateway's RequestRateLimiter gives it only a key; use the RateLimit filter on route '"
					+ routeId + "' instead");
		}
		return judge(policies, policy, routeId, null);
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

	private RequestJudge judge(RateLimitPolicies policies, RateLimitPolicy policy, String routeId,
			@Nullable Lookups lookups) {
		BucketDecider store = PenaltyVerdicts.decider(this.stores.decider(policy), policy);
		Map<String, JudgedTier> tiers = tiers(policy, store.clock());
		RouteSettings route = new RouteSettings(policy.id(), routeId, policy.shadow(), this.apiKeyHeader,
				policy.cost(), (this.costResolver != null) ? null : policy.costHeader(),
				HttpStatusCode.valueOf(policy.missingKeyStatus()), KeyParts.missingKeyDetail(policy.key()),
				policy.afterResponse(),
				new ScopeCheck(policy.scope(), new ClientAddressResolver(policies.trustedProxies())));
		return new RequestJudge(route, store, policies.tiersByApiKey(), tiers, tiers.get(policy.defaultTier().name()),
				lookups, this.listeners, this.rejectionHandler, this.held, this.responseCostResolver, this.penalties);
	}

	/**
	 * Each tier of a policy as its routes judge it, by name.
	 * @param clock the clock of the policy's store, which the headers tell calendar
	 * periods by
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
