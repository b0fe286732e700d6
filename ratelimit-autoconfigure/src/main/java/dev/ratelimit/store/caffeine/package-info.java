/**
 * The in-memory store: a Caffeine cache of buckets, each laid out for its key's kind
 * (packed, an address, a string), decided under a striped lock. Everything here is
 * non-null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.store.caffeine;

import org.jspecify.annotations.NullMarked;
