package dev.ratelimit.web;

import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;

/**
 * Answers a request the rate limiter refuses: sets the status and writes the body. The
 * rate limit headers and {@code Retry-After} are already on the response and stay as
 * they are, so clients back off the same way whatever the body says.
 * <p>
 * Declare one as a bean to use your own error format; the default is
 * {@link RateLimitProblemWriter}, an RFC 9457 problem. Called on the request path for
 * every refused request: it must not block.
 */
@FunctionalInterface
public interface RateLimitRejectionHandler {

	/**
	 * Answer a refused request.
	 * @param exchange the refused exchange; its response has the rate limit headers
	 * @param rejection what was refused and why
	 * @return completes once the response is written
	 */
	Mono<Void> reject(ServerWebExchange exchange, RateLimitRejection rejection);

}
