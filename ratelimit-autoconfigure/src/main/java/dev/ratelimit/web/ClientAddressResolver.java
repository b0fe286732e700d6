package dev.ratelimit.web;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

import dev.ratelimit.policy.IpAddress;
import dev.ratelimit.policy.TrustedProxies;
import dev.ratelimit.store.BucketId;
import org.jspecify.annotations.Nullable;

import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * The client's address, as {@code key: ip} and every fallback to it see it: the
 * connection's remote address, unless that is a trusted proxy; then the client its
 * forwarding header names, as {@link TrustedProxies#forwardedClient} reads it. This
 * class reads the request; the parsing is the policy's.
 */
final class ClientAddressResolver {

	/**
	 * The key of a request whose server does not know the remote address.
	 */
	static final String UNKNOWN = "unknown";

	private final TrustedProxies trustedProxies;

	ClientAddressResolver(TrustedProxies trustedProxies) {
		this.trustedProxies = trustedProxies;
	}

	/**
	 * The client's address, in the form {@link InetAddress#getHostAddress()} writes.
	 */
	String resolve(ServerHttpRequest request) {
		InetSocketAddress remote = request.getRemoteAddress();
		if (remote == null) {
			return UNKNOWN;
		}
		InetAddress address = remote.getAddress();
		if (address == null) {
			// An unresolved address may have been taken from a header: bound it like any key.
			return BucketId.storedKey(remote.getHostString());
		}
		if (this.trustedProxies.isEmpty()) {
			return address.getHostAddress();
		}
		byte[] proxy = address.getAddress();
		if (!this.trustedProxies.contains(proxy)) {
			return address.getHostAddress();
		}
		List<String> values = request.getHeaders().get(this.trustedProxies.header().headerName());
		if (values == null || values.isEmpty()) {
			return address.getHostAddress();
		}
		byte[] client = this.trustedProxies.forwardedClient(proxy, values);
		return (client == proxy) ? address.getHostAddress() : IpAddress.format(client);
	}

	/**
	 * The client's address as {@link #resolve} finds it, in bytes (4 or 16, as
	 * {@link IpAddress#parse} returns them), or {@code null} when the server does not
	 * know it as an IP address.
	 */
	byte @Nullable [] address(ServerHttpRequest request) {
		InetSocketAddress remote = request.getRemoteAddress();
		InetAddress address = (remote != null) ? remote.getAddress() : null;
		if (address == null) {
			return null;
		}
		byte[] proxy = address.getAddress();
		if (this.trustedProxies.isEmpty() || !this.trustedProxies.contains(proxy)) {
			return proxy;
		}
		List<String> values = request.getHeaders().get(this.trustedProxies.header().headerName());
		return (values != null && !values.isEmpty()) ? this.trustedProxies.forwardedClient(proxy, values) : proxy;
	}

}
