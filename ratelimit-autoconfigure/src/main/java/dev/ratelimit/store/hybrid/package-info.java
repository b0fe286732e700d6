/**
 * The hybrid store: each node decides from leases of a bucket's quota held in its own
 * memory and reconciles them with Redis every sync interval, through the Redis store's
 * script. Everything here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.store.hybrid;

import org.jspecify.annotations.NullMarked;
