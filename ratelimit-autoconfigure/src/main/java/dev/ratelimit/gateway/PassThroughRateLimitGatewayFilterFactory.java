package dev.ratelimit.gateway;

import java.util.List;

import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;

/**
 * The {@code RateLimit} filter when rate limiting is switched off
 * ({@code ratelimit.enabled=false}): routes that name a policy still load, and every
 * request passes untouched, with no headers.
 */
public class PassThroughRateLimitGatewayFilterFactory
		extends AbstractGatewayFilterFactory<RateLimitGatewayFilterFactory.Config> {

	public PassThroughRateLimitGatewayFilterFactory() {
		super(RateLimitGatewayFilterFactory.Config.class);
	}

	@Override
	public String name() {
		return RateLimitGatewayFilterFactory.NAME;
	}

	@Override
	public ShortcutType shortcutType() {
		return ShortcutType.GATHER_LIST;
	}

	@Override
	public List<String> shortcutFieldOrder() {
		return List.of(RateLimitGatewayFilterFactory.POLICIES_KEY);
	}

	@Override
	public GatewayFilter apply(RateLimitGatewayFilterFactory.Config config) {
		return (exchange, chain) -> chain.filter(exchange);
	}

}
