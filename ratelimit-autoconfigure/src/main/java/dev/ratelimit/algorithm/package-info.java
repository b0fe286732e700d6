/**
 * The five rate limit algorithms: pure Java, no Spring and no I/O; time comes in as an
 * argument and a decision is a small immutable value. Everything here is non-null
 * unless marked {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.algorithm;

import org.jspecify.annotations.NullMarked;
