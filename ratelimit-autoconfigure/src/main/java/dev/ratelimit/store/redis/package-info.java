/**
 * The Redis-backed stores: exact decisions by one atomic script per request, or a
 * hybrid of leases decided in this node's memory and synced to Redis, with what both
 * do while Redis fails. Everything here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.store.redis;

import org.jspecify.annotations.NullMarked;
