package dev.ratelimit.web;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.policy.ForwardedHeader;
import dev.ratelimit.policy.ForwardedSyntax;
import dev.ratelimit.policy.IpAddress;
import dev.ratelimit.policy.TrustedProxies;
import dev.ratelimit.store.BucketId;
import org.jspecify.annotations.Nullable;

import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * The client's address, as {@code key: ip} and every fallback to it see it: the
 * connection's remote address, unless that is a trusted proxy. Then the proxy's
 * forwarding header is read from the right, the end each proxy appends to, skipping
 * trusted proxies: the right-most address that is not one is the client. Everything to
 * its left was written by the client or proxies nobody vouches for, and is never read,
 * so a forged header changes nothing.
 * <p>
 * An entry that is not an IP address (RFC 7239's {@code unknown}, an obfuscated
 * identifier, which a proxy may make up anew for each request, or garbage) ends the
 * walk: the client is the trusted proxy that wrote it. So is a {@code Forwarded}
 * header that does not parse. The headers' syntax is {@link ForwardedSyntax}'s.
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
		byte[] client = (this.trustedProxies.header() == ForwardedHeader.FORWARDED) ? fromForwarded(values, proxy)
				: fromXForwardedFor(values, proxy);
		return (client == proxy) ? address.getHostAddress() : IpAddress.format(client);
	}

	/**
	 * Walks {@code X-Forwarded-For: <client>, <proxy1>, <proxy2>} from the right; the
	 * header may come as several lines, which read as one list (RFC 9110 section 5.3).
	 */
	private byte[] fromXForwardedFor(List<String> values, byte[] proxy) {
		byte[] nearest = proxy;
		for (int line = values.size() - 1; line >= 0; line--) {
			String value = values.get(line);
			int end = value.length();
			while (true) {
				int comma = (end > 0) ? value.lastIndexOf(',', end - 1) : -1;
				int start = ForwardedSyntax.skipWhitespace(value, comma + 1, end);
				int stop = ForwardedSyntax.trimWhitespace(value, start, end);
				if (start < stop) {
					byte[] hop = ForwardedSyntax.node(value, start, stop);
					if (hop == null) {
						return nearest;
					}
					if (!this.trustedProxies.contains(hop)) {
						return hop;
					}
					nearest = hop;
				}
				if (comma < 0) {
					break;
				}
				end = comma;
			}
		}
		return nearest;
	}

	/**
	 * Walks the {@code for} parameters of {@code Forwarded} (RFC 7239 section 4) from
	 * the right.
	 */
	private byte[] fromForwarded(List<String> values, byte[] proxy) {
		List<@Nullable String> hops = new ArrayList<>();
		for (String value : values) {
			if (!ForwardedSyntax.forNodes(value, hops)) {
				return proxy;
			}
		}
		byte[] nearest = proxy;
		for (int i = hops.size() - 1; i >= 0; i--) {
			String node = hops.get(i);
			byte[] hop = (node != null) ? ForwardedSyntax.node(node, 0, node.length()) : null;
			if (hop == null) {
				return nearest;
			}
			if (!this.trustedProxies.contains(hop)) {
				return hop;
			}
			nearest = hop;
		}
		return nearest;
	}

}
