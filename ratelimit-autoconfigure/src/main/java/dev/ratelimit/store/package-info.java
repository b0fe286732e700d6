/**
 * Where bucket state lives and how a decision over it is made atomic: the decide and
 * inspect ports of a store, the registry that finds a policy's store, and the
 * in-memory Caffeine store. Everything here is non-null unless marked
 * {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.store;

import org.jspecify.annotations.NullMarked;
