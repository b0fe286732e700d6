/**
 * Rate limit policies as validated, immutable objects, bound once at start-up from
 * configuration. Everything here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.policy;

import org.jspecify.annotations.NullMarked;
