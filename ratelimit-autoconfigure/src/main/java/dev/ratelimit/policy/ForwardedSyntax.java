package dev.ratelimit.policy;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The syntax of the forwarding headers {@link TrustedProxies#forwardedClient} reads: the
 * elements and {@code for} parameters of {@code Forwarded} (RFC 7239), the nodes both
 * headers name, and the whitespace between list items. Parsing is by hand, without
 * regular expressions or DNS, and never throws: what does not parse reads as
 * {@code null} or {@code false}.
 */
final class ForwardedSyntax {

	private ForwardedSyntax() {
	}

	/**
	 * Adds the {@code for} value of each element of one {@code Forwarded} line to
	 * {@code hops}, {@code null} for an element without one.
	 * @return whether the line parsed: {@code forwarded-element *( "," forwarded-element )}
	 * with {@code forwarded-pair = token "=" ( token / quoted-string )}, each parameter
	 * at most once per element (RFC 7239 section 4). Unquoted values are taken up to the
	 * next delimiter, so that the unquoted IPv6 addresses many proxies write still read.
	 */
	static boolean forNodes(String value, List<@Nullable String> hops) {
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
	static byte @Nullable [] node(String text, int start, int end) {
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

	static int skipWhitespace(String value, int from, int end) {
		int at = from;
		while (at < end && (value.charAt(at) == ' ' || value.charAt(at) == '\t')) {
			at++;
		}
		return at;
	}

	static int trimWhitespace(String value, int start, int end) {
		int at = end;
		while (at > start && (value.charAt(at - 1) == ' ' || value.charAt(at - 1) == '\t')) {
			at--;
		}
		return at;
	}

}
