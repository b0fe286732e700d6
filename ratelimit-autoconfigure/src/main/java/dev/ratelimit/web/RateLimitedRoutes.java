package dev.ratelimit.web;

import java.util.List;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * Which gateway routes apply each policy, as the read-only views (the actuator's
 * endpoint) show them; the gateway's adapter reads them from its routes.
 */
@FunctionalInterface
public interface RateLimitedRoutes {

	/**
	 * The name of Spring Cloud Gateway's {@code RequestRateLimiter} filter.
	 */
	String REQUEST_RATE_LIMITER = "RequestRateLimiter";

	/**
	 * Every route that applies a policy, once per filter that applies it, in the order
	 * of the route definitions, then of the routes built in Java.
	 */
	Mono<List<RateLimitedRoute>> routes();

	/**
	 * A gateway route that applies a policy.
	 *
	 * @param id the route's id
	 * @param policy the policy's id
	 * @param filter the filter that applies it: {@code RateLimit} or
	 * {@link #REQUEST_RATE_LIMITER}
	 * @param keyResolver the {@code KeyResolver} that keys a {@code RequestRateLimiter}
	 * route, in place of the policy's {@code key}; {@code null} for a {@code RateLimit}
	 * route, keyed by the policy
	 */
	record RateLimitedRoute(String id, String policy, String filter, @Nullable String keyResolver) {

	}

}
