package dev.ratelimit.gateway;

import java.util.Map;

import reactor.core.publisher.Mono;

import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;

/**
 * A policy's {@code RateLimiter} bean when rate limiting is switched off
 * ({@code ratelimit.enabled=false}): routes that name it still load, and every request
 * is allowed, with no headers.
 */
public final class PassThroughRateLimiter implements RateLimiter<Object> {

	private static final Mono<Response> ALLOWED = Mono.just(new Response(true, Map.of()));

	@Override
	public Mono<Response> isAllowed(String routeId, String id) {
		return ALLOWED;
	}

	@Override
	public Map<String, Object> getConfig() {
		return Map.of();
	}

	@Override
	public Class<Object> getConfigClass() {
		return Object.class;
	}

	@Override
	public Object newConfig() {
		return new Object();
	}

}
