package dev.ratelimit.policy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * Strict parsing of IP address literals, never a DNS lookup: IPv4 in dotted decimal
 * (four parts, no leading zeros, so {@code 010.0.0.1}, {@code 127.1} and
 * {@code 0x7f.0.0.1} are not addresses), IPv6 as RFC 4291 section 2.2 writes it,
 * without a zone. An IPv4-mapped IPv6 address ({@code ::ffff:192.0.2.1}) is its IPv4
 * address, so that one client has one key however a proxy spells it.
 */
public final class IpAddress {

	private static final int IPV4_BYTES = 4;

	private static final int IPV6_BYTES = 16;

	/**
	 * Longer text is no IP literal ({@code ffff:...:255.255.255.255} is 45 characters).
	 */
	private static final int MAX_LITERAL_LENGTH = 45;

	private IpAddress() {
	}

	/**
	 * The address {@code text[start, end)} spells: 4 bytes for IPv4 (IPv4-mapped IPv6
	 * included), 16 for IPv6; {@code null} when it is not a literal.
	 */
	public static byte @Nullable [] parse(CharSequence text, int start, int end) {
		int length = end - start;
		if (length <= 0 || length > MAX_LITERAL_LENGTH) {
			return null;
		}
		for (int i = start; i < end; i++) {
			if (text.charAt(i) == ':') {
				return unmapped(parseIpv6(text, start, end));
			}
		}
		byte[] address = new byte[IPV4_BYTES];
		return parseIpv4(text, start, end, address, 0) ? address : null;
	}

	/**
	 * The address {@code text} spells, or {@code null}.
	 */
	public static byte @Nullable [] parse(CharSequence text) {
		return parse(text, 0, text.length());
	}

	/**
	 * The address in the form {@link InetAddress#getHostAddress()} writes, the form
	 * the connection's remote address is keyed by.
	 */
	public static String format(byte[] address) {
		try {
			return InetAddress.getByAddress(address).getHostAddress();
		}
		catch (UnknownHostException ex) {
			throw new IllegalArgumentException("not an IP address: " + address.length + " bytes", ex);
		}
	}

	private static boolean parseIpv4(CharSequence text, int start, int end, byte[] into, int offset) {
		int part = 0;
		int at = start;
		while (part < IPV4_BYTES) {
			int value = 0;
			int digits = 0;
			while (at < end && text.charAt(at) != '.') {
				char c = text.charAt(at);
				if (c < '0' || c > '9' || digits == 3 || (digits == 1 && value == 0)) {
					return false;
				}
				value = value * 10 + (c - '0');
				digits++;
				at++;
			}
			if (digits == 0 || value > 255) {
				return false;
			}
			into[offset + part] = (byte) value;
			part++;
			if (part < IPV4_BYTES) {
				if (at >= end) {
					return false;
				}
				at++;
			}
		}
		return at == end;
	}

	private static byte @Nullable [] parseIpv6(CharSequence text, int start, int end) {
		byte[] address = new byte[IPV6_BYTES];
		int written = 0;
		int gapAt = -1;
		int at = start;
		if (startsWith(text, at, end, "::")) {
			gapAt = 0;
			at += 2;
			if (at == end) {
				return address;
			}
		}
		while (at < end) {
			if (written == IPV6_BYTES) {
				return null;
			}
			int groupStart = at;
			int value = 0;
			while (at < end && hexValue(text.charAt(at)) >= 0 && at - groupStart < 4) {
				value = (value << 4) | hexValue(text.charAt(at));
				at++;
			}
			if (at < end && text.charAt(at) == '.') {
				// An embedded IPv4 address ends the literal and fills two groups.
				if (written > IPV6_BYTES - IPV4_BYTES || !parseIpv4(text, groupStart, end, address, written)) {
					return null;
				}
				written += IPV4_BYTES;
				break;
			}
			if (at == groupStart) {
				return null;
			}
			address[written++] = (byte) (value >> 8);
			address[written++] = (byte) value;
			if (at == end) {
				break;
			}
			if (text.charAt(at) != ':') {
				return null;
			}
			at++;
			if (at < end && text.charAt(at) == ':') {
				if (gapAt >= 0) {
					return null;
				}
				gapAt = written;
				at++;
			}
			else if (at == end) {
				// A single trailing colon.
				return null;
			}
		}
		if (gapAt < 0) {
			return (written == IPV6_BYTES) ? address : null;
		}
		if (written == IPV6_BYTES) {
			// "::" must stand for at least one group.
			return null;
		}
		int tail = written - gapAt;
		System.arraycopy(address, gapAt, address, IPV6_BYTES - tail, tail);
		Arrays.fill(address, gapAt, IPV6_BYTES - tail, (byte) 0);
		return address;
	}

	private static byte @Nullable [] unmapped(byte @Nullable [] address) {
		if (address == null) {
			return null;
		}
		for (int i = 0; i < 10; i++) {
			if (address[i] != 0) {
				return address;
			}
		}
		if (address[10] != (byte) 0xff || address[11] != (byte) 0xff) {
			return address;
		}
		return new byte[] { address[12], address[13], address[14], address[15] };
	}

	private static boolean startsWith(CharSequence text, int at, int end, String prefix) {
		if (end - at < prefix.length()) {
			return false;
		}
		for (int i = 0; i < prefix.length(); i++) {
			if (text.charAt(at + i) != prefix.charAt(i)) {
				return false;
			}
		}
		return true;
	}

	private static int hexValue(char c) {
		if (c >= '0' && c <= '9') {
			return c - '0';
		}
		if (c >= 'a' && c <= 'f') {
			return c - 'a' + 10;
		}
		if (c >= 'A' && c <= 'F') {
			return c - 'A' + 10;
		}
		return -1;
	}

}
