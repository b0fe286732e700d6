package dev.ratelimit.web;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.security.oauth2.server.resource.authentication.AbstractOAuth2TokenAuthenticationToken;

/**
 * {@code ratelimit.tiers.claim}, and {@code claim:<Name>} keys, which read the claim the
 * same way: the tier is a claim of the token Spring Security's
 * OAuth2 resource server authenticated the request with, a JWT
 * ({@code JwtAuthenticationToken}) or an introspected opaque token
 * ({@code BearerTokenAuthentication}). Referenced only when that class is present.
 */
final class OAuth2ClaimTiers {

	private OAuth2ClaimTiers() {
	}

	/**
	 * The claim's value when it is a non-empty string; a request without such a token
	 * or claim, or with a claim of another type (a list, a number), gets its API key's
	 * tier.
	 */
	static TierLookup lookup(String claimName) {
		TierLookup.Awaited fromClaim = (exchange, apiKeyTier) -> exchange.getPrincipal()
			.flatMap((principal) -> Mono.justOrEmpty(claim(principal, claimName)))
			.switchIfEmpty(Mono.justOrEmpty(apiKeyTier));
		return fromClaim;
	}

	/**
	 * The claim of the principal's token when it is a non-empty string, as a tier and a
	 * {@code claim:<Name>} key read it; otherwise {@code null}.
	 */
	static @Nullable String claim(Object principal, String claimName) {
		if (principal instanceof AbstractOAuth2TokenAuthenticationToken<?> token
				&& token.getTokenAttributes().get(claimName) instanceof String tier && !tier.isEmpty()) {
			return tier;
		}
		return null;
	}

}
