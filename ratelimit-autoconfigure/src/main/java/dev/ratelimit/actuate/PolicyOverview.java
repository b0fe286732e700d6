package dev.ratelimit.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

import dev.ratelimit.actuate.RateLimitsEndpoint.HeldRequestsDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.LimitDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.PenaltyDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.ScopeDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.PolicyDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.ProblemDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.RateLimitsDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.ReloadDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.RouteDescriptor;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.DurationFormat;
import dev.ratelimit.policy.PolicyReloads;
import dev.ratelimit.policy.PolicyReloads.Reload;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketInspector;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.web.HeldRequests;
import dev.ratelimit.web.RateLimitWebFilter;
import dev.ratelimit.web.RateLimitedRoutes;
import dev.ratelimit.web.RateLimitedRoutes.RateLimitedRoute;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.http.HttpMethod;
import org.springframework.web.util.pattern.PathPattern;

/**
 * The {@code ratelimits} endpoint's overview: every policy as configured, with the
 * routes that use it, its live buckets and its decisions so far; every route that
 * applies a policy, gateway and web routes alike, with what keys it; the last reload;
 * and the requests this node holds for shaping.
 */
final class PolicyOverview {

	/**
	 * What applies the policy of a route under {@code ratelimit.web.routes}.
	 */
	private static final String WEB_ROUTES = "ratelimit.web.routes";

	private final Supplier<RateLimitPolicies> policies;

	private final BucketStores stores;

	private final RateLimitTotals totals;

	private final @Nullable RateLimitedRoutes gatewayRoutes;

	private final List<RateLimitWebFilter.Route> webRoutes;

	private final @Nullable PolicyReloads reloads;

	private final @Nullable HeldRequests held;

	PolicyOverview(Supplier<RateLimitPolicies> policies, BucketStores stores, RateLimitTotals totals,
			@Nullable RateLimitedRoutes gatewayRoutes, List<RateLimitWebFilter.Route> webRoutes,
			@Nullable PolicyReloads reloads, @Nullable HeldRequests held) {
		this.policies = policies;
		this.stores = stores;
		this.totals = totals;
		this.gatewayRoutes = gatewayRoutes;
		this.webRoutes = List.copyOf(webRoutes);
		this.reloads = reloads;
		this.held = held;
	}

	Mono<RateLimitsDescriptor> describe() {
		Mono<List<RateLimitedRoute>> gatewayRoutes = (this.gatewayRoutes != null) ? this.gatewayRoutes.routes()
				: Mono.just(List.of());
		return gatewayRoutes.flatMap((gateway) -> {
			RateLimitPolicies inForce = this.policies.get();
			List<RouteDescriptor> routes = describeRoutes(inForce, gateway);
			return Flux.fromIterable(new TreeMap<>(inForce.byId()).values())
				.concatMap((policy) -> describe(policy, routesOf(policy, routes)))
				.collectList()
				.map((policies) -> describeAll(policies, routes));
		});
	}

	private List<RouteDescriptor> describeRoutes(RateLimitPolicies inForce, List<RateLimitedRoute> gateway) {
		List<RouteDescriptor> routes = new ArrayList<>();
		for (RateLimitedRoute route : gateway) {
			// A RequestRateLimiter route is keyed by its KeyResolver, never by the policy's key.
			String key = (route.keyResolver() != null) ? route.keyResolver() : keyOf(inForce, route.policy());
			routes.add(new RouteDescriptor(route.id(), route.policy(), route.filter(), key, null, null));
		}
		for (RateLimitWebFilter.Route route : this.webRoutes) {
			List<String> paths = route.paths().stream().map(PathPattern::getPatternString).toList();
			List<String> methods = route.methods().stream().map(HttpMethod::name).sorted().toList();
			for (RateLimitPolicy policy : route.policies()) {
				routes.add(new RouteDescriptor(route.id(), policy.id(), WEB_ROUTES, keyOf(inForce, policy.id()), paths,
						methods));
			}
		}
		return routes;
	}

	private static @Nullable String keyOf(RateLimitPolicies inForce, String policyId) {
		RateLimitPolicy policy = inForce.policy(policyId);
		return (policy != null) ? policy.key().configValue() : null;
	}

	private static List<RouteDescriptor> routesOf(RateLimitPolicy policy, List<RouteDescriptor> routes) {
		return routes.stream().filter((route) -> route.policy().equals(policy.id())).toList();
	}

	private RateLimitsDescriptor describeAll(List<PolicyDescriptor> policies, List<RouteDescriptor> routes) {
		TreeSet<String> stores = new TreeSet<>();
		Map<String, PolicyDescriptor> byId = new LinkedHashMap<>();
		for (PolicyDescriptor policy : policies) {
			stores.add(policy.store());
			byId.put(policy.id(), policy);
		}
		HeldRequestsDescriptor held = (this.held != null)
				? new HeldRequestsDescriptor(this.held.held(), this.held.max()) : null;
		return new RateLimitsDescriptor(List.copyOf(stores), held, byId, routes, lastReload());
	}

	private @Nullable ReloadDescriptor lastReload() {
		Reload last = (this.reloads != null) ? this.reloads.last() : null;
		if (last == null) {
			return null;
		}
		List<ProblemDescriptor> problems = new ArrayList<>();
		for (ConfigurationProblem problem : last.problems()) {
			problems.add(new ProblemDescriptor(problem.property(),
					(problem.value() != null) ? String.valueOf(problem.value()) : null, problem.rule()));
		}
		return new ReloadDescriptor(last.at(), last.outcome().value(), last.changedKeys(), problems);
	}

	/**
	 * The policy's {@code key} as configured, unless every route that uses it is a
	 * {@code RequestRateLimiter} route: then the route's {@code KeyResolver} decides,
	 * and that is what it shows.
	 */
	private static String key(RateLimitPolicy policy, List<RouteDescriptor> routes) {
		boolean onlyRequestRateLimiters = !routes.isEmpty() && routes.stream()
			.allMatch((route) -> RateLimitedRoutes.REQUEST_RATE_LIMITER.equals(route.filter()));
		if (!onlyRequestRateLimiters) {
			return policy.key().configValue();
		}
		return String.join(", ", new LinkedHashSet<>(routes.stream().map(RouteDescriptor::key).toList()));
	}

	private Mono<PolicyDescriptor> describe(RateLimitPolicy policy, List<RouteDescriptor> routes) {
		List<String> routeIds = routes.stream().map(RouteDescriptor::id).distinct().toList();
		BucketInspector store = this.stores.inspector(policy);
		Map<String, List<LimitDescriptor>> tiers = new TreeMap<>();
		policy.tiers().forEach((name, tier) -> tiers.put(name, describe(policy, tier)));
		// One unreachable remote store must not hide every other policy from the operator.
		Mono<LiveBuckets> liveBuckets = (store != null) ? store.bucketCount(policy)
			.map(LiveBuckets::counted)
			.onErrorResume((failure) -> Mono.just(LiveBuckets.failed(store, failure)))
				: Mono.just(new LiveBuckets(null, BucketStores.notInspectable(policy)));
		return liveBuckets
			.map((live) -> new PolicyDescriptor(policy.id(), key(policy, routes), policy.shadow(),
					policy.cost(), policy.store().storeName(), routeIds, live.count(),
					live.countError(), this.totals.totals(policy.id()), policy.defaultTier().name(), tiers,
					PenaltyDescriptor.of(policy.penalty()), ScopeDescriptor.of(policy.scope())));
	}

	private static List<LimitDescriptor> describe(RateLimitPolicy policy, Tier tier) {
		List<LimitDescriptor> limits = new ArrayList<>();
		for (int i = 0; i < tier.limits().size(); i++) {
			Limit limit = tier.limits().get(i);
			Map<String, Object> parameters = new LinkedHashMap<>();
			limit.parameters().forEach((name, value) -> parameters.put(name, readable(value)));
			limits.add(new LimitDescriptor(tier.limitName(policy.id(), i), limit.algorithm().configName(),
					parameters));
		}
		return limits;
	}

	private static Object readable(Object value) {
		return (value instanceof Duration duration) ? DurationFormat.asConfigured(duration) : value;
	}

	private record LiveBuckets(@Nullable Long count, @Nullable String countError) {

		static LiveBuckets counted(long count) {
			return new LiveBuckets(count, null);
		}

		static LiveBuckets failed(BucketInspector store, Throwable failure) {
			return new LiveBuckets(null, "the " + store.name() + " store could not count its buckets: " + failure);
		}

	}

}
