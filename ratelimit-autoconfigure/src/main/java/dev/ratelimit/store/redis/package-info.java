/**
 * The exact Redis store: one atomic script call per request, the scripts assembled from
 * one Lua source per algorithm, the connection, and what a Redis-backed store does while
 * Redis fails (the guard, its breaker and probe). {@code store.hybrid} builds on the
 * script and the guard. Everything here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.store.redis;

import org.jspecify.annotations.NullMarked;
