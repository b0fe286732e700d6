package dev.ratelimit.web;

import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;

/**
 * Says how many units a request consumes, instead of each policy's {@code cost} and
 * {@code cost-header}: declare one as a bean and it decides for every policy. Called on
 * the request path for every limited request: it must not block.
 */
@FunctionalInterface
public interface CostResolver {

	/**
	 * The cost of a request.
	 * @param exchange the request
	 * @param policyId the policy the request is judged by
	 * @return the units the request consumes, at least {@code 1}; empty for the
	 * policy's {@code cost}. A cost above what the request's tier can ever admit is
	 * refused with {@code 400}; a cost below {@code 1} is an error of the resolver
	 */
	Mono<Long> resolve(ServerWebExchange exchange, String policyId);

}
