package dev.ratelimit.gateway;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.NamedPolicies;
import dev.ratelimit.policy.RateLimitPolicies;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.OrderedGatewayFilter;
import org.springframework.cloud.gateway.filter.factory.GatewayFilterFactory;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.web.server.ServerWebExchange;

/**
 * The {@code RateLimit} filter for routes built in Java with
 * {@code RouteLocatorBuilder}:
 * {@code .filters(f -> f.filter(rateLimitFilters.policy("orders")))} limits a route as
 * {@code - RateLimit=orders} does in YAML, and
 * {@code rateLimitFilters.policies("per-ip", "global")} as
 * {@code - RateLimit=per-ip,global}, the policies judged together. A route takes one
 * such filter: two would judge a request one after the other, each on its own.
 * <p>
 * The policies and their stores are checked when the filter is made, so a route naming
 * an unknown policy, or policies that cannot be judged together, fails the start-up. The
 * route's id, which a Java route's filters are not told, is read from the first request
 * the route serves; from then on the route is served by the same filter a YAML route
 * gets.
 */
public final class RateLimitFilters {

	private final GatewayFilterFactory<RateLimitGatewayFilterFactory.Config> factory;

	private final @Nullable RateLimitPolicies policies;

	/**
	 * @param factory the {@code RateLimit} filter factory, or the pass-through one when
	 * rate limiting is switched off
	 * @param policies the policies routes may name, or {@code null} when rate limiting
	 * is switched off
	 */
	public RateLimitFilters(GatewayFilterFactory<RateLimitGatewayFilterFactory.Config> factory,
			@Nullable RateLimitPolicies policies) {
		this.factory = factory;
		this.policies = policies;
	}

	/**
	 * The filter limiting a route by a policy of {@code ratelimit.policies}.
	 * @throws InvalidRateLimitConfigurationException when there is no such policy or
	 * its store is not available
	 */
	public GatewayFilter policy(String policyId) {
		return filter(List.of(policyId), "Java route filter RateLimitFilters.policy(...)");
	}

	/**
	 * The filter limiting a route by several policies of {@code ratelimit.policies},
	 * judged together, all or nothing, decided in this order.
	 * @throws InvalidRateLimitConfigurationException when none is named, one is named
	 * twice or is no policy, a store is not available, or the policies cannot be judged
	 * together
	 */
	public GatewayFilter policies(String... policyIds) {
		return filter(List.of(policyIds), "Java route filter RateLimitFilters.policies(...)");
	}

	private GatewayFilter filter(List<String> policyIds, String where) {
		if (this.policies != null) {
			NamedPolicies.require(this.policies, policyIds, where);
		}
		return new PolicyFilter(policyIds, this.factory);
	}

	/**
	 * The policies of a filter {@link #policies(String...)} made, as it stands in a
	 * built route (perhaps wrapped with an order), in order; none for any other filter.
	 */
	public static List<String> policyIds(GatewayFilter filter) {
		GatewayFilter unwrapped = (filter instanceof OrderedGatewayFilter ordered) ? ordered.getDelegate() : filter;
		return (unwrapped instanceof PolicyFilter policyFilter) ? policyFilter.policyIds : List.of();
	}

	/**
	 * One filter of policies, shared by every route it was added to: each route gets its
	 * own {@code RateLimit} filter, built on the route's first request.
	 */
	private static final class PolicyFilter implements GatewayFilter {

		private final List<String> policyIds;

		private final GatewayFilterFactory<RateLimitGatewayFilterFactory.Config> factory;

		/**
		 * Serves an exchange that no route matched, which the gateway never passes to
		 * a route filter; built eagerly so that an unavailable store fails the start-up.
		 */
		private final GatewayFilter unrouted;

		private final Map<String, GatewayFilter> byRouteId = new ConcurrentHashMap<>();

		PolicyFilter(List<String> policyIds, GatewayFilterFactory<RateLimitGatewayFilterFactory.Config> factory) {
			this.policyIds = policyIds;
			this.factory = factory;
			this.unrouted = factory.apply((config) -> config.setPolicies(policyIds));
		}

		@Override
		public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
			Route route = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR);
			GatewayFilter filter = (route != null) ? this.byRouteId.computeIfAbsent(route.getId(),
					(routeId) -> this.factory.apply(routeId, (config) -> config.setPolicies(this.policyIds)))
					: this.unrouted;
			return filter.filter(exchange, chain);
		}

		@Override
		public String toString() {
			return "RateLimit[policies=" + String.join(",", this.policyIds) + "]";
		}

	}

}
