/**
 * Rate limit policies as validated, immutable objects, built from the configured
 * settings at start-up, and the policies in force, replaced whole by a validated
 * reload. Everything here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.policy;

import org.jspecify.annotations.NullMarked;
