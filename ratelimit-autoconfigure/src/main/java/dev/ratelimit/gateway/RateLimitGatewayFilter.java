package dev.ratelimit.gateway;

import dev.ratelimit.web.RequestJudge;
import reactor.core.publisher.Mono;

import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.web.server.ServerWebExchange;

import static org.springframework.cloud.gateway.support.GatewayToStringStyler.filterToStringCreator;

/**
 * The RateLimit filter of one route: its {@link RequestJudge} of the route's policies, in
 * the gateway's filter chain.
 */
final class RateLimitGatewayFilter implements GatewayFilter {

	private final RequestJudge judge;

	RateLimitGatewayFilter(RequestJudge judge) {
		this.judge = judge;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
		return this.judge.judge(exchange, chain, GatewayFilterChain::filter);
	}

	@Override
	public String toString() {
		return filterToStringCreator(this).append("policies", this.judge.policyIds())
			.append("stores", this.judge.storeNames())
			.toString();
	}

}
