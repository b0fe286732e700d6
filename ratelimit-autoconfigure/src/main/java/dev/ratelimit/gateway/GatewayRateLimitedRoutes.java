package dev.ratelimit.gateway;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.web.RateLimitedRoutes;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.route.RouteDefinition;
import org.springframework.cloud.gateway.route.RouteDefinitionLocator;
import org.springframework.cloud.gateway.route.RouteLocator;

/**
 * Which gateway routes name each policy in a {@code RateLimit} filter, alone or among
 * the route's policies (or its
 * {@code <policy>RateLimiter} bean in a {@code RequestRateLimiter} filter), read from the
 * route definitions as they stand (routes may be added at runtime), and from the built
 * routes for routes built in Java with {@link RateLimitFilters}, which have no
 * definition. A default filter applies to every route.
 */
public final class GatewayRateLimitedRoutes implements RateLimitedRoutes {

	private final RouteDefinitionLocator routeDefinitionLocator;

	private final List<FilterDefinition> defaultFilters;

	private final @Nullable RouteLocator routeLocator;

	private final @Nullable String defaultKeyResolver;

	/**
	 * @param routeDefinitionLocator the gateway's route definitions
	 * @param defaultFilters the gateway's default filters
	 * @param routeLocator the gateway's built routes, or {@code null} to read the
	 * definitions only
	 * @param defaultKeyResolver the {@code KeyResolver} of a {@code RequestRateLimiter}
	 * route that names none, as a route would name it ({@code #{@principalNameKeyResolver}}),
	 * or {@code null} without the {@code RequestRateLimiter} filter
	 */
	public GatewayRateLimitedRoutes(RouteDefinitionLocator routeDefinitionLocator, List<FilterDefinition> defaultFilters,
			@Nullable RouteLocator routeLocator, @Nullable String defaultKeyResolver) {
		this.routeDefinitionLocator = routeDefinitionLocator;
		this.defaultFilters = List.copyOf(defaultFilters);
		this.routeLocator = routeLocator;
		this.defaultKeyResolver = defaultKeyResolver;
	}

	/**
	 * Every route that applies a policy, once per filter that applies it (a route whose
	 * filter names several policies once per policy), in the order of the route
	 * definitions, then of the routes built in Java.
	 */
	@Override
	public Mono<List<RateLimitedRoute>> routes() {
		Flux<Route> routes = (this.routeLocator != null) ? this.routeLocator.getRoutes() : Flux.empty();
		return this.routeDefinitionLocator.getRouteDefinitions()
			.collect(LinkedHashMap<String, RateLimitedRoute>::new, this::addRoute)
			.flatMap((found) -> routes.reduce(found, GatewayRateLimitedRoutes::addJavaRoute))
			.map((found) -> List.copyOf(found.values()));
	}

	private static LinkedHashMap<String, RateLimitedRoute> addJavaRoute(LinkedHashMap<String, RateLimitedRoute> found,
			Route route) {
		for (GatewayFilter filter : route.getFilters()) {
			for (String policy : RateLimitFilters.policyIds(filter)) {
				add(found, new RateLimitedRoute(route.getId(), policy, RateLimitGatewayFilterFactory.NAME, null));
			}
		}
		return found;
	}

	private static void add(Map<String, RateLimitedRoute> found, RateLimitedRoute route) {
		found.putIfAbsent(route.id() + "\u0000" + route.policy() + "\u0000" + route.filter(), route);
	}

	private void addRoute(Map<String, RateLimitedRoute> found, RouteDefinition route) {
		addFilters(found, route.getId(), this.defaultFilters);
		addFilters(found, route.getId(), route.getFilters());
	}

	private void addFilters(Map<String, RateLimitedRoute> found, String routeId, List<FilterDefinition> filters) {
		for (FilterDefinition filter : filters) {
			List<String> policies = FilterDefinitions.rateLimitPolicies(filter);
			for (String named : (policies != null) ? policies : List.<String>of()) {
				add(found, new RateLimitedRoute(routeId, named, RateLimitGatewayFilterFactory.NAME, null));
			}
			String policy = FilterDefinitions.rateLimiterPolicy(filter);
			if (policy != null) {
				add(found, new RateLimitedRoute(routeId, policy, FilterDefinitions.REQUEST_RATE_LIMITER, keyResolver(filter)));
			}
		}
	}

	private @Nullable String keyResolver(FilterDefinition requestRateLimiter) {
		Map<String, String> args = requestRateLimiter.getArgs();
		String keyResolver = args.get(RequestRateLimiterGatewayFilterFactory.KEY_RESOLVER_KEY);
		if (keyResolver == null) {
			keyResolver = args.get("key-resolver");
		}
		return (keyResolver != null) ? keyResolver.strip() : this.defaultKeyResolver;
	}

}
