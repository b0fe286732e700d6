package dev.ratelimit.web;

import java.util.List;
import java.util.Set;

import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.NamedPolicies;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

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
 * the first route whose path patterns and methods match a request enforces its policies
 * on it, judged together, through its {@link RequestJudge}, exactly as the gateway's
 * {@code RateLimit} filter would; a request no route matches passes untouched.
 */
public final class RateLimitWebFilter implements WebFilter, Ordered {

	private final RequestJudges judges;

	private final List<Route> routes;

	private final @Nullable KeyResolverBeans keyResolverBeans;

	/**
	 * Each route with its judge, all built from one snapshot of the policies and
	 * replaced whole on a live reload: a request reads it once, so it never sees a mix of
	 * two snapshots.
	 */
	private volatile Limited[] limited;

	private final int order;

	/**
	 * The filter of validated routes.
	 * @param judges builds each route's request path
	 * @param routes the routes, in the order they are tried
	 * @param keyResolverBeans the gateway's {@code KeyResolver} beans, with Spring Cloud
	 * Gateway on the classpath; {@code null} without it, where no route's policy may be
	 * keyed by one
	 * @param order the filter's order among the application's web filters
	 */
	public RateLimitWebFilter(RequestJudges judges, List<Route> routes, @Nullable KeyResolverBeans keyResolverBeans,
			int order) {
		this.judges = judges;
		this.routes = List.copyOf(routes);
		this.keyResolverBeans = keyResolverBeans;
		this.order = order;
		this.limited = limited(judges.policies());
	}

	/**
	 * The routes, as validated at start-up.
	 */
	public List<Route> routes() {
		return this.routes;
	}

	/**
	 * Judge the next requests under reloaded policies: every route's judge is built
	 * again from {@code policies}, then all are put in force at once. The routes
	 * themselves ({@code ratelimit.web.*}) stay as they were.
	 * @param policies the policies now in force, validated to define every route's
	 * policies
	 * @throws InvalidRateLimitConfigurationException when a route's policy is not
	 * defined, a store is not available or its headers could not describe a tier; the
	 * judges in force then stay
	 */
	public void reload(RateLimitPolicies policies) {
		this.limited = limited(policies);
	}

	private Limited[] limited(RateLimitPolicies policies) {
		Limited[] limited = new Limited[this.routes.size()];
		for (int i = 0; i < limited.length; i++) {
			Route route = this.routes.get(i);
			List<RateLimitPolicy> named = NamedPolicies.require(policies,
					route.policies().stream().map(RateLimitPolicy::id).toList(), "web route '" + route.id() + "' policies");
			limited[i] = new Limited(route.paths().toArray(new PathPattern[0]), route.methods(),
					this.judges.forRoute(policies, named, route.id(), this.keyResolverBeans));
		}
		return limited;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		ServerHttpRequest request = exchange.getRequest();
		PathContainer path = request.getPath().pathWithinApplication();
		HttpMethod method = request.getMethod();
		for (Limited route : this.limited) {
			if (route.matches(path, method)) {
				return route.judge().judge(exchange, chain, WebFilterChain::filter);
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
	 * @param policies the policies the route enforces together, in the order they are
	 * decided, as validated at start-up; a live reload puts the policies of the same ids
	 * in force
	 */
	public record Route(String id, List<PathPattern> paths, Set<HttpMethod> methods, List<RateLimitPolicy> policies) {

		public Route {
			paths = List.copyOf(paths);
			methods = Set.copyOf(methods);
			policies = List.copyOf(policies);
		}

		/**
		 * A route enforcing one policy.
		 */
		public Route(String id, List<PathPattern> paths, Set<HttpMethod> methods, RateLimitPolicy policy) {
			this(id, paths, methods, List.of(policy));
		}

	}

	private record Limited(PathPattern[] paths, Set<HttpMethod> methods, RequestJudge judge) {

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
