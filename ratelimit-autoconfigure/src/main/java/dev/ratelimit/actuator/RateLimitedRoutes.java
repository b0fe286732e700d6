package dev.ratelimit.actuator;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.ratelimit.gateway.PolicyRateLimiter;
import dev.ratelimit.gateway.RateLimitFilters;
import dev.ratelimit.gateway.RateLimitGatewayFilterFactory;

import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.route.RouteDefinition;
import org.springframework.cloud.gateway.route.RouteDefinitionLocator;
import org.springframework.cloud.gateway.route.RouteLocator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Which gateway routes name each policy in a {@code RateLimit} filter (or its
 * {@code <policy>RateLimiter} bean in a {@code RequestRateLimiter} filter), read from the
 * route definitions as they stand (routes may be added at runtime), and from the built
 * routes for routes built in Java with {@link RateLimitFilters}, which have no
 * definition. A default filter applies to every route.
 */
public final class RateLimitedRoutes {

	private final RouteDefinitionLocator routeDefinitionLocator;

	private final List<FilterDefinition> defaultFilters;

	private final RouteLocator routeLocator;

	/**
	 * @param routeDefinitionLocator the gateway's route definitions
	 * @param defaultFilters the gateway's default filters
	 * @param routeLocator the gateway's built routes, or {@code null} to read the
	 * definitions only
	 */
	public RateLimitedRoutes(RouteDefinitionLocator routeDefinitionLocator, List<FilterDefinition> defaultFilters,
			RouteLocator routeLocator) {
		this.routeDefinitionLocator = routeDefinitionLocator;
		this.defaultFilters = List.copyOf(defaultFilters);
		this.routeLocator = routeLocator;
	}

	/**
	 * The ids of the routes that use each policy, by policy id; a policy no route uses
	 * is absent.
	 */
	public Mono<Map<String, List<String>>> routeIdsByPolicy() {
		Flux<Route> routes = (this.routeLocator != null) ? this.routeLocator.getRoutes() : Flux.empty();
		return this.routeDefinitionLocator.getRouteDefinitions()
			.collect(TreeMap<String, List<String>>::new, this::addRoute)
			.flatMap((routeIdsByPolicy) -> routes.reduce(routeIdsByPolicy, RateLimitedRoutes::addJavaRoute))
			.map(Map::copyOf);
	}

	private static TreeMap<String, List<String>> addJavaRoute(TreeMap<String, List<String>> routeIdsByPolicy,
			Route route) {
		for (GatewayFilter filter : route.getFilters()) {
			String policy = RateLimitFilters.policyId(filter);
			if (policy != null) {
				add(routeIdsByPolicy, policy, route.getId());
			}
		}
		return routeIdsByPolicy;
	}

	private static void add(Map<String, List<String>> routeIdsByPolicy, String policy, String routeId) {
		List<String> routeIds = routeIdsByPolicy.computeIfAbsent(policy, (id) -> new ArrayList<>());
		if (!routeIds.contains(routeId)) {
			routeIds.add(routeId);
		}
	}

	private void addRoute(Map<String, List<String>> routeIdsByPolicy, RouteDefinition route) {
		addFilters(routeIdsByPolicy, route.getId(), this.defaultFilters);
		addFilters(routeIdsByPolicy, route.getId(), route.getFilters());
	}

	private static void addFilters(Map<String, List<String>> routeIdsByPolicy, String routeId,
			List<FilterDefinition> filters) {
		for (FilterDefinition filter : filters) {
			String policy = RateLimitGatewayFilterFactory.policyId(filter);
			if (policy == null) {
				policy = PolicyRateLimiter.policyId(filter);
			}
			if (policy != null) {
				add(routeIdsByPolicy, policy, routeId);
			}
		}
	}

}
