package dev.ratelimit.policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The proxies (load balancers, CDN edges) whose forwarding header says who their
 * client was: {@code ratelimit.trusted-proxies}, parsed once at start-up. The header
 * of a request from any other address is the client's own claim, and is ignored.
 */
public final class TrustedProxies {

	/**
	 * No proxy is trusted: the client is always the connection's remote address.
	 */
	public static final TrustedProxies NONE = new TrustedProxies(List.of(), ForwardedHeader.X_FORWARDED_FOR);

	private final Block[] blocks;

	private final ForwardedHeader header;

	/**
	 * @param blocks the address blocks of the trusted proxies
	 * @param header the header those proxies append their client's address to
	 */
	public TrustedProxies(List<Block> blocks, ForwardedHeader header) {
		this.blocks = blocks.toArray(new Block[0]);
		this.header = header;
	}

	/**
	 * Whether no proxy is trusted.
	 */
	public boolean isEmpty() {
		return this.blocks.length == 0;
	}

	/**
	 * Whether the address (4 or 16 bytes, as {@link IpAddress#parse} returns it) is a
	 * trusted proxy's.
	 */
	public boolean contains(byte[] address) {
		for (Block block : this.blocks) {
			if (block.contains(address)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The client a trusted proxy's forwarding header names: the header is read from the
	 * right, the end each proxy appends to, skipping trusted proxies, and the right-most
	 * address that is not one is the client. Everything to its left was written by the
	 * client or proxies nobody vouches for, and is never read, so a forged header changes
	 * nothing. An entry that is not an IP address (RFC 7239's {@code unknown}, an
	 * obfuscated identifier, which a proxy may make up anew for each request, or garbage)
	 * ends the walk: the client is the trusted proxy that wrote it. So is a
	 * {@code Forwarded} header that does not parse. The headers' syntax is
	 * {@link ForwardedSyntax}'s.
	 * @param proxy the trusted proxy the request came from, as {@link #contains} takes it
	 * @param values the lines of its {@link #header()}
	 * @return the client's address, or {@code proxy} itself
	 */
	public byte[] forwardedClient(byte[] proxy, List<String> values) {
		return (this.header == ForwardedHeader.FORWARDED) ? fromForwarded(values, proxy)
				: fromXForwardedFor(values, proxy);
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
					if (!contains(hop)) {
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
			if (!contains(hop)) {
				return hop;
			}
			nearest = hop;
		}
		return nearest;
	}

	/**
	 * The header the trusted proxies write.
	 */
	public ForwardedHeader header() {
		return this.header;
	}

	/**
	 * The trusted blocks, in configuration order.
	 */
	public List<Block> blocks() {
		return List.of(this.blocks);
	}

	@Override
	public String toString() {
		return Arrays.toString(this.blocks) + " via " + this.header.headerName();
	}

	/**
	 * An address block in CIDR notation ({@code 10.0.0.0/8}, {@code 2001:db8::/32}); a
	 * bare address is a block of one.
	 */
	public static final class Block {

		private static final String SYNTAX = "must be an IP address or a CIDR block, such as 10.0.0.0/8 or 2001:db8::/32";

		/**
		 * Bits an IPv4-mapped IPv6 block's prefix counts before the IPv4 address.
		 */
		private static final int MAPPED_PREFIX_BITS = 96;

		private final byte[] network;

		private final int prefixLength;

		private Block(byte[] network, int prefixLength) {
			this.network = network;
			this.prefixLength = prefixLength;
		}

		/**
		 * The block {@code cidr} spells.
		 * @throws IllegalArgumentException naming the rule it breaks
		 */
		public static Block parse(@Nullable String cidr) {
			if (cidr == null || cidr.isBlank()) {
				throw new IllegalArgumentException(SYNTAX);
			}
			String text = cidr.strip();
			int slash = text.indexOf('/');
			String addressText = (slash >= 0) ? text.substring(0, slash) : text;
			byte[] address = IpAddress.parse(addressText);
			if (address == null) {
				throw new IllegalArgumentException(SYNTAX);
			}
			boolean mapped = address.length == 4 && addressText.indexOf(':') >= 0;
			int bits = mapped ? 128 : address.length * 8;
			int prefixLength = (slash >= 0) ? prefixLength(text.substring(slash + 1), bits) : bits;
			if (prefixLength == 0) {
				throw new IllegalArgumentException(
						"must not be a /0 block, which would trust every client's forwarding header");
			}
			if (mapped) {
				if (prefixLength < MAPPED_PREFIX_BITS) {
					throw new IllegalArgumentException("must be at least /96 for an IPv4-mapped address");
				}
				prefixLength -= MAPPED_PREFIX_BITS;
			}
			Block block = new Block(address, prefixLength);
			if (!Arrays.equals(block.masked(address), address)) {
				throw new IllegalArgumentException("must have no address bits set after the prefix (did you mean "
						+ IpAddress.format(block.masked(address)) + "/" + prefixLength + "?)");
			}
			return block;
		}

		private static int prefixLength(String text, int bits) {
			String rule = "must have a prefix length from 1 to " + bits + " after the '/'";
			if (text.isEmpty() || text.length() > 3) {
				throw new IllegalArgumentException(rule);
			}
			int value = 0;
			for (int i = 0; i < text.length(); i++) {
				char c = text.charAt(i);
				if (c < '0' || c > '9') {
					throw new IllegalArgumentException(rule);
				}
				value = value * 10 + (c - '0');
			}
			if (value > bits) {
				throw new IllegalArgumentException(rule);
			}
			return value;
		}

		boolean contains(byte[] address) {
			if (address.length != this.network.length) {
				return false;
			}
			int fullBytes = this.prefixLength / 8;
			for (int i = 0; i < fullBytes; i++) {
				if (address[i] != this.network[i]) {
					return false;
				}
			}
			int remainingBits = this.prefixLength % 8;
			if (remainingBits == 0) {
				return true;
			}
			int mask = (0xff << (8 - remainingBits)) & 0xff;
			return (address[fullBytes] & mask) == (this.network[fullBytes] & mask);
		}

		private byte[] masked(byte[] address) {
			byte[] masked = address.clone();
			for (int i = 0; i < masked.length; i++) {
				int bitsInByte = Math.max(0, Math.min(8, this.prefixLength - i * 8));
				masked[i] &= (byte) ((0xff << (8 - bitsInByte)) & 0xff);
			}
			return masked;
		}

		@Override
		public boolean equals(Object other) {
			return other instanceof Block block && block.prefixLength == this.prefixLength
					&& Arrays.equals(block.network, this.network);
		}

		@Override
		public int hashCode() {
			return 31 * Arrays.hashCode(this.network) + this.prefixLength;
		}

		@Override
		public String toString() {
			return IpAddress.format(this.network) + "/" + this.prefixLength;
		}

	}

}
