package dev.ratelimit.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.ratelimit.gateway.ClientKeyResolver.KeyResolverBeans;
import dev.ratelimit.policy.RateLimitPolicy;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.Ordered;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Rate limiting for a plain Spring WebFlux application ({@code ratelimit.web.routes}):
 * the first route whose path patterns and methods match a request enforces its policy
 * on it, exactly as the gateway's {@code RateLimit} filter would; a request no route
 * matches passes untouched.
 */
public final class RateLimitWebFilter implements WebFilter, Ordered {

	private final Limited[] routes;

	private final int order;

	private RateLimitWebFilter(Limited[] routes, int order) {
		this.routes = routes;
		this.order = order;
	}

	/**
	 * The filter of validated routes.
	 * @param enforcers builds each route's request path
	 * @param routes the routes, in the order they are tried
	 * @param beanFactory where {@code "#{@beanName}"} key resolvers are looked up, with
	 * Spring Cloud Gateway on the classpath
	 * @param gatewayPresent whether Spring Cloud Gateway is on the classpath; without
	 * it, no route's policy may be keyed by a {@code KeyResolver} bean
	 * @param order the filter's order among the application's web filters
	 */
	public static RateLimitWebFilter of(RateLimitEnforcers enforcers, List<Route> routes, BeanFactory beanFactory,
			boolean gatewayPresent, int order) {
		KeyResolverBeans keyResolverBeans = gatewayPresent
				? RateLimitGatewayFilterFactory.gatewayKeyResolvers(beanFactory) : null;
		List<Limited> limited = new ArrayList<>(routes.size());
		for (Route route : routes) {
			limited.add(new Limited(route.paths().toArray(new PathPattern[0]), route.methods(),
					enforcers.enforcer(route.policy(), route.id(), keyResolverBeans)));
		}
		return new RateLimitWebFilter(limited.toArray(new Limited[0]), order);
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		ServerHttpRequest request = exchange.getRequest();
		PathContainer path = request.getPath().pathWithinApplication();
		HttpMethod method = request.getMethod();
		for (Limited route : this.routes) {
			if (route.matches(path, method)) {
				return route.enforcer().enforce(exchange, chain, WebFilterChain::filter);
			}
		}
		return chain.filter(exchange);
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	/**
	 * One web route, validated at start-up.
	 *
	 * @param id the route's id, in metrics and as the key of {@code key: route}
	 * @param paths the path patterns, any of which a request's path (within the
	 * application's context path) must match
	 * @param methods the methods a request must have, or empty for any
	 * @param policy the policy the route enforces
	 */
	public record Route(String id, List<PathPattern> paths, Set<HttpMethod> methods, RateLimitPolicy policy) {

		public Route {
			paths = List.copyOf(paths);
			methods = Set.copyOf(methods);
		}

	}

	private record Limited(PathPattern[] paths, Set<HttpMethod> methods, RateLimitEnforcer enforcer) {

		boolean matches(PathContainer path, HttpMethod method) {
			if (!this.methods.isEmpty() && !this.methods.contains(method)) {
				return false;
			}
			for (PathPattern pattern : this.paths) {
				if (pattern.matches(path)) {
					return true;
				}
			}
			return false;
		}

	}

}
