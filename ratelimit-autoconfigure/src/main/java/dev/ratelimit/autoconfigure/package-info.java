/**
 * Auto-configuration of rate limiting: properties, start-up checks and wiring only.
 * Everything here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.autoconfigure;

import org.jspecify.annotations.NullMarked;
