/**
 * Rate limit policies as validated, immutable objects, built from the configured
 * settings at start-up, and the policies in force, replaced whole by a validated
 * reload; and the parsing of client addresses ({@link IpAddress}, the trusted proxies
 * and the forwarding headers they write). Everything here is non-null unless marked
 * {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.policy;

import org.jspecify.annotations.NullMarked;
