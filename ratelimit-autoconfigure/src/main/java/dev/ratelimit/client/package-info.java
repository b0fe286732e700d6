/**
 * Clients that read the rate limit headers and slow down before they are refused: a
 * WebClient {@link RateLimitAwareExchangeFilter} and a RestClient
 * {@link RateLimitAwareRequestInterceptor}, over one {@link RateLimitState} per client
 * and the headers read into {@link RateLimitFields}. Nothing registers them: an
 * application adds them to the clients it builds. Nothing here depends on the rest of
 * the starter but {@code dev.ratelimit.support}'s clock. Everything here is non-null
 * unless marked {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.client;

import org.jspecify.annotations.NullMarked;
