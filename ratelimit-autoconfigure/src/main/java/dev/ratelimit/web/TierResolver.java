package dev.ratelimit.web;

import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;

/**
 * Finds the tier of a request, instead of {@code ratelimit.tiers.api-keys},
 * {@code ratelimit.tiers.header} and {@code ratelimit.tiers.claim}: declare one as a
 * bean and it replaces them all. Called on the request path for every limited request:
 * it must not block.
 */
@FunctionalInterface
public interface TierResolver {

	/**
	 * The name of the request's tier.
	 * @param exchange the request
	 * @return the tier's name; empty, or a name a policy does not list, for the default
	 * tier ({@code ratelimit.tiers.default}); an error is logged and the request gets
	 * the default tier
	 */
	Mono<String> resolve(ServerWebExchange exchange);

}
