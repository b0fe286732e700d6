package dev.ratelimit.gateway;

/**
 * Which rate limit headers the filter writes, as configured by
 * {@code ratelimit.headers}.
 */
public enum HeaderStyle {

	/**
	 * {@code RateLimit-Limit}, {@code RateLimit-Remaining}, {@code RateLimit-Reset} and
	 * {@code X-RateLimit-Policy}, as in draft-ietf-httpapi-ratelimit-headers-06.
	 */
	DRAFT_06,

	/**
	 * Structured Fields {@code RateLimit-Policy} and {@code RateLimit}, as in
	 * draft-ietf-httpapi-ratelimit-headers-11.
	 */
	DRAFT_11,

	/**
	 * The de-facto {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and
	 * {@code X-RateLimit-Reset}.
	 */
	X_RATELIMIT,

	/**
	 * No rate limit headers; a rejection still carries {@code Retry-After}.
	 */
	NONE

}
