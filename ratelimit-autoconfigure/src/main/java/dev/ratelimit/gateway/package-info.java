/**
 * The {@code RateLimit} gateway filter: resolves a request's key and tier, asks the
 * store, and writes rate limit headers or the 429 problem body. Everything here is
 * non-null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.gateway;

import org.jspecify.annotations.NullMarked;
