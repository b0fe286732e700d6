/**
 * The Spring Cloud Gateway adapters of the request path: the {@code RateLimit} filter
 * factory and {@link RateLimitFilters} for Java routes, the policies'
 * {@code RateLimiter} beans ({@link PolicyRateLimiter}), the routes' filter definitions
 * read and validated at start-up, and the pass-through twins used when rate limiting is
 * switched off. Each calls a route's {@link dev.ratelimit.web.RequestJudge}. Everything
 * here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.gateway;

import org.jspecify.annotations.NullMarked;
