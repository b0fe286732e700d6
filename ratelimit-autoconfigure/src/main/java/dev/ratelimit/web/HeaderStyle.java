package dev.ratelimit.web;

import dev.ratelimit.support.ConfigName;

/**
 * Which rate limit headers the request path writes, as configured by
 * {@code ratelimit.headers}.
 */
public enum HeaderStyle implements ConfigName {

	/**
	 * {@code RateLimit-Limit}, {@code RateLimit-Remaining}, {@code RateLimit-Reset} and
	 * {@code RateLimit-Policy}, as in draft-ietf-httpapi-ratelimit-headers-06: the first
	 * three describe the limit with the least remaining.
	 */
	DRAFT_06,

	/**
	 * Structured Fields {@code RateLimit-Policy} and {@code RateLimit}, as in
	 * draft-ietf-httpapi-ratelimit-headers-11: one item per limit, the one with the
	 * least remaining first.
	 */
	DRAFT_11,

	/**
	 * The de-facto {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and
	 * {@code X-RateLimit-Reset}, describing the limit with the least remaining.
	 */
	X_RATELIMIT,

	/**
	 * No rate limit headers; a rejection still carries {@code Retry-After}.
	 */
	NONE

}
