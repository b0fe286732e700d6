package dev.ratelimit.gateway;

import reactor.core.publisher.Mono;

import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.web.server.ServerWebExchange;

import static org.springframework.cloud.gateway.support.GatewayToStringStyler.filterToStringCreator;

/**
 * The RateLimit filter of one route: its {@link RateLimitEnforcer}, in the gateway's
 * filter chain.
 */
final class RateLimitGatewayFilter implements GatewayFilter {

	private final RateLimitEnforcer enforcer;

	RateLimitGatewayFilter(RateLimitEnforcer enforcer) {
		this.enforcer = enforcer;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
		return this.enforcer.enforce(exchange, chain, GatewayFilterChain::filter);
	}

	@Override
	public String toString() {
		return filterToStringCreator(this).append("policy", this.enforcer.policyId())
			.append("store", this.enforcer.storeName())
			.append("shadow", this.enforcer.shadow())
			.toString();
	}

}
