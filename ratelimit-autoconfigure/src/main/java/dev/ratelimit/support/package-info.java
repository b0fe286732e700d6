/**
 * Small pieces every room shares and that depend on no other room: the clocks decisions
 * are timed by, the names enums are written with in YAML, how far apart a misspelt
 * word is from the one meant, and a log that reports a recurring failure at most once
 * per interval. Everything here is non-null unless
 * marked {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.support;

import org.jspecify.annotations.NullMarked;
