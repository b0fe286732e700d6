package dev.ratelimit.gateway;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.UnknownPolicy;
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
 * {@code - RateLimit=orders} does in YAML.
 * <p>
 * The policy and its store are checked when the route is built, so a route naming an
 * unknown policy fails the start-up. The route's id, which a Java route's filters are
 * not told, is read from the first request the route serves; from then on the route
 * is served by the same filter a YAML route gets.
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
		if (this.policies != null) {
			UnknownPolicy.require(this.policies, policyId, "Java route filter RateLimitFilters.policy(...)");
		}
		return new PolicyFilter(policyId, this.factory);
	}

	/**
	 * The policy of a filter {@link #policy(String)} made, as it stands in a built
	 * route (perhaps wrapped with an order), or {@code null} for any other filter.
	 */
	public static String policyId(GatewayFilter filter) {
		GatewayFilter unwrapped = (filter instanceof OrderedGatewayFilter ordered) ? ordered.getDelegate() : filter;
		return (unwrapped instanceof PolicyFilter policyFilter) ? policyFilter.policyId : null;
	}

	/**
	 * One policy's filter, shared by every route it was added to: each route gets its
	 * own {@code RateLimit} filter, built on the route's first request.
	 */
	private static final class PolicyFilter implements GatewayFilter {

		private final String policyId;

		private final GatewayFilterFactory<RateLimitGatewayFilterFactory.Config> factory;

		/**
		 * Serves an exchange that no route matched, which the gateway never passes to
		 * a route filter; built eagerly so that an unavailable store fails the start-up.
		 */
		private final GatewayFilter unrouted;

		private final Map<String, GatewayFilter> byRouteId = new ConcurrentHashMap<>();

		PolicyFilter(String policyId, GatewayFilterFactory<RateLimitGatewayFilterFactory.Config> factory) {
			this.policyId = policyId;
			this.factory = factory;
			this.unrouted = factory.apply((config) -> config.setPolicy(policyId));
		}

		@Override
		public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
			Route route = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR);
			GatewayFilter filter = (route != null) ? this.byRouteId.computeIfAbsent(route.getId(),
					(routeId) -> this.factory.apply(routeId, (config) -> config.setPolicy(this.policyId)))
					: this.unrouted;
			return filter.filter(exchange, chain);
		}

		@Override
		public String toString() {
			return "RateLimit[policy=" + this.policyId + "]";
		}

	}

}
