/**
 * Micrometer metrics of rate limit decisions and live buckets. Everything here is
 * non-null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.metrics;

import org.jspecify.annotations.NullMarked;
