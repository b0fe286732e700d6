/**
 * The {@code ratelimits} actuator endpoint, its dashboard and the stores' health:
 * read-only views over the stores, plus reset. Everything here is non-null unless
 * marked {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.actuate;

import org.jspecify.annotations.NullMarked;
