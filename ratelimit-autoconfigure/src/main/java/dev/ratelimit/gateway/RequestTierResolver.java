package dev.ratelimit.gateway;

import dev.ratelimit.policy.TierSource;
import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;

/**
 * Names the tier of a request, as chosen once at start-up from
 * {@code ratelimit.tiers} or a {@link TierResolver} bean. A name no policy lists is
 * the policy's business: it falls back to the default tier.
 */
@FunctionalInterface
interface RequestTierResolver {

	/**
	 * @param exchange the request
	 * @param apiKeyTier the tier of the request's API key, or {@code null} when it has
	 * no configured key
	 * @return the tier's name, or nothing for the default tier
	 */
	Mono<String> resolve(ServerWebExchange exchange, String apiKeyTier);

	/**
	 * A resolver that reads the tier from the request itself, at once.
	 */
	@FunctionalInterface
	interface Immediate extends RequestTierResolver {

		/**
		 * @return the tier's name, or {@code null} for the default tier
		 */
		String resolveNow(ServerWebExchange exchange, String apiKeyTier);

		@Override
		default Mono<String> resolve(ServerWebExchange exchange, String apiKeyTier) {
			return Mono.justOrEmpty(resolveNow(exchange, apiKeyTier));
		}

	}

	/**
	 * The resolver of a tier source; a {@link TierSource.Claim} needs Spring Security's
	 * OAuth2 resource server on the classpath, as checked at start-up.
	 */
	static RequestTierResolver of(TierSource source) {
		if (source instanceof TierSource.Header header) {
			String headerName = header.headerName();
			Immediate fromHeader = (exchange, apiKeyTier) -> {
				String tier = exchange.getRequest().getHeaders().getFirst(headerName);
				return (tier != null && !tier.isEmpty()) ? tier : apiKeyTier;
			};
			return fromHeader;
		}
		if (source instanceof TierSource.Claim claim) {
			return OAuth2ClaimTiers.resolver(claim.claimName());
		}
		Immediate fromApiKey = (exchange, apiKeyTier) -> apiKeyTier;
		return fromApiKey;
	}

	/**
	 * The resolver of a {@link TierResolver} bean, which replaces every configured
	 * source.
	 */
	static RequestTierResolver of(TierResolver resolver) {
		return (exchange, apiKeyTier) -> Mono.defer(() -> resolver.resolve(exchange));
	}

}
