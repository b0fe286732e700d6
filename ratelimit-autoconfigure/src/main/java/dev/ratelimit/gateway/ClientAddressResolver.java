package dev.ratelimit.gateway;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.policy.ForwardedHeader;
import dev.ratelimit.policy.IpAddress;
import dev.ratelimit.policy.TrustedProxies;
import dev.ratelimit.store.BucketId;

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
 * header that does not parse. Parsing is by hand, without regular expressions or DNS.
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
				int start = skipWhitespace(value, comma + 1, end);
				int stop = trimWhitespace(value, start, end);
				if (start < stop) {
					byte[] hop = node(value, start, stop);
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
		List<String> hops = new ArrayList<>();
		for (String value : values) {
			if (!forNodes(value, hops)) {
				return proxy;
			}
		}
		byte[] nearest = proxy;
		for (int i = hops.size() - 1; i >= 0; i--) {
			String node = hops.get(i);
			byte[] hop = (node != null) ? node(node, 0, node.length()) : null;
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

	/**
	 * Adds the {@code for} value of each element of one {@code Forwarded} line to
	 * {@code hops}, {@code null} for an element without one.
	 * @return whether the line parsed: {@code forwarded-element *( "," forwarded-element )}
	 * with {@code forwarded-pair = token "=" ( token / quoted-string )}, each parameter
	 * at most once per element (RFC 7239 section 4). Unquoted values are taken up to the
	 * next delimiter, so that the unquoted IPv6 addresses many proxies write still read.
	 */
	private static boolean forNodes(String value, List<String> hops) {
		int length = value.length();
		int at = 0;
		String forNode = null;
		boolean forSeen = false;
		boolean elementEmpty = true;
		while (true) {
			at = skipWhitespace(value, at, length);
			if (at == length || value.charAt(at) == ',') {
				if (!elementEmpty) {
					hops.add(forNode);
				}
				if (at == length) {
					return true;
				}
				forNode = null;
				forSeen = false;
				elementEmpty = true;
				at++;
				continue;
			}
			if (value.charAt(at) == ';') {
				at++;
				continue;
			}
			int nameStart = at;
			while (at < length && isTokenChar(value.charAt(at))) {
				at++;
			}
			if (at == nameStart || at == length || value.charAt(at) != '=') {
				return false;
			}
			boolean isFor = at - nameStart == 3 && value.regionMatches(true, nameStart, "for", 0, 3);
			at++;
			String pairValue;
			if (at < length && value.charAt(at) == '"') {
				StringBuilder unquoted = new StringBuilder();
				at = quotedString(value, at + 1, unquoted);
				if (at < 0) {
					return false;
				}
				pairValue = unquoted.toString();
			}
			else {
				int valueStart = at;
				while (at < length && !isDelimiter(value.charAt(at))) {
					at++;
				}
				if (at == valueStart) {
					return false;
				}
				pairValue = value.substring(valueStart, at);
			}
			if (isFor) {
				if (forSeen) {
					return false;
				}
				forSeen = true;
				forNode = pairValue;
			}
			elementEmpty = false;
			at = skipWhitespace(value, at, length);
			if (at < length && value.charAt(at) != ';' && value.charAt(at) != ',') {
				return false;
			}
		}
	}

	/**
	 * Reads a quoted-string's content from after its opening quote (RFC 9110 section
	 * 5.6.4).
	 * @return the index after the closing quote, or -1 when there is none
	 */
	private static int quotedString(String value, int from, StringBuilder into) {
		int at = from;
		while (at < value.length()) {
			char c = value.charAt(at);
			if (c == '"') {
				return at + 1;
			}
			if (c == '\\') {
				at++;
				if (at == value.length()) {
					return -1;
				}
				c = value.charAt(at);
			}
			into.append(c);
			at++;
		}
		return -1;
	}

	/**
	 * The address of a node: {@code 192.0.2.1}, {@code 192.0.2.1:8080},
	 * {@code 2001:db8::1}, {@code [2001:db8::1]} or {@code [2001:db8::1]:8080};
	 * {@code null} for anything else.
	 */
	private static byte[] node(String text, int start, int end) {
		if (text.charAt(start) == '[') {
			int close = text.indexOf(']', start);
			if (close < 0 || close >= end) {
				return null;
			}
			if (close + 1 < end && (text.charAt(close + 1) != ':' || !isPort(text, close + 2, end))) {
				return null;
			}
			return IpAddress.parse(text, start + 1, close);
		}
		int colon = text.indexOf(':', start);
		if (colon >= 0 && colon < end && text.lastIndexOf(':', end - 1) == colon
				&& text.lastIndexOf('.', colon) >= start) {
			// An IPv4 address and a port.
			if (!isPort(text, colon + 1, end)) {
				return null;
			}
			byte[] address = IpAddress.parse(text, start, colon);
			return (address != null && address.length == 4) ? address : null;
		}
		return IpAddress.parse(text, start, end);
	}

	/**
	 * A port: digits, or an obfuscated port ({@code _} and letters, digits, {@code .},
	 * {@code _} or {@code -}, RFC 7239 section 6.3).
	 */
	private static boolean isPort(String text, int start, int end) {
		if (start >= end || end - start > 16) {
			return false;
		}
		boolean obfuscated = text.charAt(start) == '_';
		for (int i = obfuscated ? start + 1 : start; i < end; i++) {
			char c = text.charAt(i);
			boolean digit = c >= '0' && c <= '9';
			boolean letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
			if (!digit && !(obfuscated && (letter || c == '.' || c == '_' || c == '-'))) {
				return false;
			}
		}
		return obfuscated ? end - start > 1 : end - start <= 5;
	}

	private static boolean isTokenChar(char c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
				|| "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
	}

	private static boolean isDelimiter(char c) {
		return c == ',' || c == ';' || c == '"' || c == ' ' || c == '\t';
	}

	private static int skipWhitespace(String value, int from, int end) {
		int at = from;
		while (at < end && (value.charAt(at) == ' ' || value.charAt(at) == '\t')) {
			at++;
		}
		return at;
	}

	private static int trimWhitespace(String value, int start, int end) {
		int at = end;
		while (at > start && (value.charAt(at - 1) == ' ' || value.charAt(at - 1) == '\t')) {
			at--;
		}
		return at;
	}

}
