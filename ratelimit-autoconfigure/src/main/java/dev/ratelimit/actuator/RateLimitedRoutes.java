package dev.ratelimit.actuator;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.ratelimit.gateway.RateLimitGatewayFilterFactory;

import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.route.RouteDefinition;
import org.springframework.cloud.gateway.route.RouteDefinitionLocator;
import reactor.core.publisher.Mono;

/**
 * Which gateway routes name each policy in a {@code RateLimit} filter, read from the
 * route definitions as they stand (routes may be added at runtime). A default filter
 * applies to every route.
 */
public final class RateLimitedRoutes {

	private final RouteDefinitionLocator routeDefinitionLocator;

	private final List<FilterDefinition> defaultFilters;

	/**
	 * @param routeDefinitionLocator the gateway's route definitions
	 * @param defaultFilters the gateway's default filters
	 */
	public RateLimitedRoutes(RouteDefinitionLocator routeDefinitionLocator, List<FilterDefinition> defaultFilters) {
		this.routeDefinitionLocator = routeDefinitionLocator;
		this.defaultFilters = List.copyOf(defaultFilters);
	}

	/**
	 * The ids of the routes that use each policy, by policy id; a policy no route uses
	 * is absent.
	 */
	public Mono<Map<String, List<String>>> routeIdsByPolicy() {
		return this.routeDefinitionLocator.getRouteDefinitions()
			.collect(TreeMap<String, List<String>>::new, this::addRoute)
			.map(Map::copyOf);
	}

	private void addRoute(Map<String, List<String>> routeIdsByPolicy, RouteDefinition route) {
		addFilters(routeIdsByPolicy, route.getId(), this.defaultFilters);
		addFilters(routeIdsByPolicy, route.getId(), route.getFilters());
	}

	private static void addFilters(Map<String, List<String>> routeIdsByPolicy, String routeId,
			List<FilterDefinition> filters) {
		for (FilterDefinition filter : filters) {
			String policy = RateLimitGatewayFilterFactory.policyId(filter);
			if (policy != null) {
				List<String> routeIds = routeIdsByPolicy.computeIfAbsent(policy, (id) -> new ArrayList<>());
				if (!routeIds.contains(routeId)) {
					routeIds.add(routeId);
				}
			}
		}
	}

}
