/**
 * The ports of a store: deciding a request against a bucket ({@code BucketDecider}),
 * inspecting and resetting buckets ({@code BucketInspector}), the ids and snapshots they
 * speak in, and the registry that finds a policy's store. The stores themselves live
 * below: {@code caffeine} in this node's memory, {@code redis} exact across a fleet,
 * {@code hybrid} leases decided here and synced to Redis. Everything here is non-null
 * unless marked {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.store;

import org.jspecify.annotations.NullMarked;
