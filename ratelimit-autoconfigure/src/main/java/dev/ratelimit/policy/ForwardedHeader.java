package dev.ratelimit.policy;

import dev.ratelimit.support.ConfigName;

/**
 * The header trusted proxies append their client's address to. Only one is read: a
 * proxy that writes one passes the other on as the client sent it, so reading both
 * would let a client choose its own address.
 */
public enum ForwardedHeader implements ConfigName {

	/**
	 * {@code X-Forwarded-For: <client>, <proxy1>, <proxy2>}: the de facto standard,
	 * written by most load balancers and CDNs.
	 */
	X_FORWARDED_FOR("X-Forwarded-For"),

	/**
	 * {@code Forwarded: for=<client>, for=<proxy1>}, as RFC 7239 defines it.
	 */
	FORWARDED("Forwarded");

	private final String headerName;

	ForwardedHeader(String headerName) {
		this.headerName = headerName;
	}

	/**
	 * The header's name.
	 */
	public String headerName() {
		return this.headerName;
	}

}
