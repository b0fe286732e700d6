package dev.ratelimit.web;

import dev.ratelimit.policy.TierSource;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;

/**
 * How a route finds the name of a request's tier, chosen once at start-up from
 * {@code ratelimit.tiers} or the application's {@link TierResolver} bean: read from the
 * request at once, or awaited. A name no policy lists is the policy's business: it falls
 * back to the default tier.
 */
sealed interface TierLookup permits TierLookup.InRequest, TierLookup.Awaited {

	/**
	 * A tier read from the request itself, so that the judge needs no {@code Mono}.
	 */
	@FunctionalInterface
	non-sealed interface InRequest extends TierLookup {

		/**
		 * @param apiKeyTier the tier of the request's API key, or {@code null} when it
		 * has no configured key
		 * @return the tier's name, or {@code null} for the default tier
		 */
		@Nullable String read(ServerWebExchange exchange, @Nullable String apiKeyTier);

	}

	/**
	 * A tier that has to be waited for: a token's claim, a {@link TierResolver} bean.
	 */
	@FunctionalInterface
	non-sealed interface Awaited extends TierLookup {

		/**
		 * @param apiKeyTier the tier of the request's API key, or {@code null} when it
		 * has no configured key
		 * @return the tier's name, or nothing for the default tier
		 */
		Mono<String> resolve(ServerWebExchange exchange, @Nullable String apiKeyTier);

	}

	/**
	 * The lookup of a tier source; a {@link TierSource.Claim} needs Spring Security's
	 * OAuth2 resource server on the classpath, as checked at start-up.
	 */
	static TierLookup of(TierSource source) {
		if (source instanceof TierSource.Header header) {
			String headerName = header.headerName();
			InRequest fromHeader = (exchange, apiKeyTier) -> {
				String tier = exchange.getRequest().getHeaders().getFirst(headerName);
				return (tier != null && !tier.isEmpty()) ? tier : apiKeyTier;
			};
			return fromHeader;
		}
		if (source instanceof TierSource.Claim claim) {
			return OAuth2ClaimTiers.lookup(claim.claimName());
		}
		InRequest fromApiKey = (exchange, apiKeyTier) -> apiKeyTier;
		return fromApiKey;
	}

	/**
	 * The lookup of a {@link TierResolver} bean, which replaces every configured source.
	 */
	static TierLookup of(TierResolver resolver) {
		Awaited fromBean = (exchange, apiKeyTier) -> Mono.defer(() -> resolver.resolve(exchange));
		return fromBean;
	}

}
