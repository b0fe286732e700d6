package dev.ratelimit.web;

import java.net.InetSocketAddress;
import java.util.List;

import dev.ratelimit.policy.ForwardedHeader;
import dev.ratelimit.policy.TrustedProxies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Who the client is when requests come through proxies, and that nobody else's
 * forwarding header changes it.
 */
class ClientAddressResolverTests {

	private static final String PROXY = "10.0.0.5";

	private static final String CLIENT = "203.0.113.7";

	private final ClientAddressResolver xForwardedFor = resolver(ForwardedHeader.X_FORWARDED_FOR, "10.0.0.0/8",
			"2001:db8:ffff::/48");

	private final ClientAddressResolver forwarded = resolver(ForwardedHeader.FORWARDED, "10.0.0.0/8",
			"2001:db8:ffff::/48");

	@Test
	void withoutTrustedProxiesTheRemoteAddressIsTheClientWhateverTheHeadersSay() {
		ClientAddressResolver resolver = new ClientAddressResolver(TrustedProxies.NONE);
		assertThat(resolver.resolve(request(CLIENT, "X-Forwarded-For", "198.51.100.1"))).isEqualTo(CLIENT);
		assertThat(resolver.resolve(request(CLIENT, "Forwarded", "for=198.51.100.1"))).isEqualTo(CLIENT);
		assertThat(resolver.resolve(request(PROXY, "X-Forwarded-For", "198.51.100.1"))).isEqualTo(PROXY);
	}

	@ParameterizedTest
	@ValueSource(strings = { "198.51.100.1", "10.0.0.1", "198.51.100.1, 10.0.0.1", "unknown", "1.1.1.1, 10.0.0.9" })
	void aForgedHeaderFromAnUntrustedClientChangesNothing(String forged) {
		assertThat(this.xForwardedFor.resolve(request(CLIENT, "X-Forwarded-For", forged))).isEqualTo(CLIENT);
		assertThat(this.forwarded.resolve(request(CLIENT, "Forwarded", "for=" + forged.replace(", ", ", for="))))
			.isEqualTo(CLIENT);
	}

	@Test
	void aTrustedProxysHeaderNamesTheClient() {
		assertThat(this.xForwardedFor.resolve(request(PROXY, "X-Forwarded-For", CLIENT))).isEqualTo(CLIENT);
		assertThat(this.forwarded.resolve(request(PROXY, "Forwarded", "for=" + CLIENT))).isEqualTo(CLIENT);
	}

	@Test
	void aTrustedProxyWithoutTheHeaderIsTheClient() {
		assertThat(this.xForwardedFor.resolve(request(PROXY))).isEqualTo(PROXY);
		assertThat(this.xForwardedFor.resolve(request(PROXY, "X-Forwarded-For", ""))).isEqualTo(PROXY);
		assertThat(this.forwarded.resolve(request(PROXY, "Forwarded", ""))).isEqualTo(PROXY);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = {
			// The client wrote the left part; the trusted proxy appended what it saw.
			"198.51.100.1, 203.0.113.7 | 203.0.113.7",
			"10.0.0.1, 203.0.113.7 | 203.0.113.7",
			"198.51.100.1,203.0.113.7,10.0.0.9 | 203.0.113.7",
			"  198.51.100.1 ,  203.0.113.7 , 10.0.0.9  | 203.0.113.7",
			"203.0.113.7, 10.1.1.1, 10.2.2.2 | 203.0.113.7",
			// Every hop trusted: the left-most is the farthest proxy, the best known client.
			"10.1.1.1, 10.2.2.2 | 10.1.1.1",
			// Ports, brackets and IPv4-mapped addresses, as some proxies write them.
			"203.0.113.7:51234 | 203.0.113.7",
			"[2001:db8::7]:443 | 2001:db8:0:0:0:0:0:7",
			"[2001:db8::7] | 2001:db8:0:0:0:0:0:7",
			"2001:db8::7 | 2001:db8:0:0:0:0:0:7",
			"2001:DB8:0::7 | 2001:db8:0:0:0:0:0:7",
			"::ffff:203.0.113.7 | 203.0.113.7",
			"203.0.113.7, 2001:db8:ffff::1 | 203.0.113.7",
			// Empty list elements are skipped (RFC 9110 section 5.6.1).
			"203.0.113.7,, ,10.0.0.9 | 203.0.113.7" })
	void theRightMostUntrustedAddressIsTheClient(String header, String client) {
		assertThat(this.xForwardedFor.resolve(request(PROXY, "X-Forwarded-For", header))).isEqualTo(client);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = {
			// Garbage where the proxy's entry should be: the proxy is the client.
			"203.0.113.7, garbage | 10.0.0.5",
			"unknown | 10.0.0.5",
			"127.1 | 10.0.0.5",
			"0x7f.0.0.1 | 10.0.0.5",
			"2130706433 | 10.0.0.5",
			"010.0.0.1 | 10.0.0.5",
			"fe80::1%eth0 | 10.0.0.5",
			"[2001:db8::7 | 10.0.0.5",
			"[2001:db8::7]x | 10.0.0.5",
			"203.0.113.7:99999999 | 10.0.0.5",
			"example.com | 10.0.0.5",
			// Garbage behind a trusted hop: that hop is the client; nothing further left is read.
			"203.0.113.7, garbage, 10.0.0.9 | 10.0.0.9",
			"203.0.113.7, _hidden, 10.0.0.9 | 10.0.0.9" })
	void anEntryThatIsNoAddressEndsTheWalkAtTheProxyThatWroteIt(String header, String client) {
		assertThat(this.xForwardedFor.resolve(request(PROXY, "X-Forwarded-For", header))).isEqualTo(client);
	}

	@Test
	void severalHeaderLinesReadAsOneList() {
		ServerHttpRequest request = MockServerHttpRequest.get("/")
			.remoteAddress(new InetSocketAddress(PROXY, 443))
			.header("X-Forwarded-For", "198.51.100.1, 203.0.113.7")
			.header("X-Forwarded-For", "10.0.0.9")
			.build();
		assertThat(this.xForwardedFor.resolve(request)).isEqualTo(CLIENT);
	}

	@Test
	void anIpv6ProxyIsTrustedByItsBlock() {
		assertThat(this.xForwardedFor.resolve(request("2001:db8:ffff::2", "X-Forwarded-For", CLIENT)))
			.isEqualTo(CLIENT);
		assertThat(this.xForwardedFor.resolve(request("2001:db8:fffe::2", "X-Forwarded-For", CLIENT)))
			.isEqualTo("2001:db8:fffe:0:0:0:0:2");
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = {
			"for=203.0.113.7 | 203.0.113.7",
			"For=203.0.113.7;proto=https;by=10.0.0.5 | 203.0.113.7",
			"for=\"203.0.113.7:4711\" | 203.0.113.7",
			"for=\"[2001:db8:cafe::17]:4711\" | 2001:db8:cafe:0:0:0:0:17",
			"for=\"[2001:db8:cafe::17]\" | 2001:db8:cafe:0:0:0:0:17",
			// Unquoted IPv6, as many proxies write it.
			"for=[2001:db8:cafe::17] | 2001:db8:cafe:0:0:0:0:17",
			"for=198.51.100.1, for=203.0.113.7 | 203.0.113.7",
			"for=198.51.100.1;host=\"a,b;c\", for=203.0.113.7;host=\"x\\\"y\", for=10.0.0.9 | 203.0.113.7",
			"for=203.0.113.7, proto=https | 10.0.0.5",
			"for=10.1.1.1, for=10.2.2.2 | 10.1.1.1",
			// RFC 7239 section 6: unknown and obfuscated identifiers end the walk.
			"for=unknown | 10.0.0.5",
			"for=_hidden | 10.0.0.5",
			"for=\"_gazonk\" | 10.0.0.5",
			"for=203.0.113.7, for=_hidden, for=10.0.0.9 | 10.0.0.9",
			"for=\"203.0.113.7:_port\" | 203.0.113.7",
			// A header that does not parse is not read at all.
			"for=\"203.0.113.7 | 10.0.0.5",
			"for=203.0.113.7;for=198.51.100.1 | 10.0.0.5",
			"for | 10.0.0.5",
			"=203.0.113.7 | 10.0.0.5",
			"for=203.0.113.7 garbage | 10.0.0.5" })
	void forwardedIsReadAsRfc7239WritesIt(String header, String client) {
		assertThat(this.forwarded.resolve(request(PROXY, "Forwarded", header))).isEqualTo(client);
	}

	@Test
	void onlyTheConfiguredHeaderIsRead() {
		// The proxies write X-Forwarded-For and pass a client's Forwarded on untouched.
		ServerHttpRequest request = MockServerHttpRequest.get("/")
			.remoteAddress(new InetSocketAddress(PROXY, 443))
			.header("Forwarded", "for=198.51.100.1")
			.header("X-Forwarded-For", CLIENT)
			.build();
		assertThat(this.xForwardedFor.resolve(request)).isEqualTo(CLIENT);
		assertThat(this.forwarded.resolve(request)).isEqualTo("198.51.100.1");
		assertThat(this.forwarded.resolve(request(PROXY, "X-Forwarded-For", CLIENT))).isEqualTo(PROXY);
	}

	@Test
	void aHugeForgedChainIsReadOnlyUpToTheClient() {
		String forged = String.join(", ", java.util.Collections.nCopies(2000, "10.0.0.1"));
		assertThat(this.xForwardedFor.resolve(request(PROXY, "X-Forwarded-For", forged + ", " + CLIENT)))
			.isEqualTo(CLIENT);
		assertThat(this.xForwardedFor.resolve(request(CLIENT, "X-Forwarded-For", forged))).isEqualTo(CLIENT);
	}

	@Test
	void binaryAndUnicodeValuesAreNoAddresses() {
		assertThat(this.xForwardedFor.resolve(request(PROXY, "X-Forwarded-For", "203.0.113.7\u0000"))).isEqualTo(PROXY);
		assertThat(this.xForwardedFor.resolve(request(PROXY, "X-Forwarded-For", "２０３.0.113.7"))).isEqualTo(PROXY);
		assertThat(this.forwarded.resolve(request(PROXY, "Forwarded", "for=\"\u00ff\u0001\""))).isEqualTo(PROXY);
	}

	@Test
	void withoutARemoteAddressTheClientIsUnknown() {
		ServerHttpRequest request = MockServerHttpRequest.get("/").header("X-Forwarded-For", CLIENT).build();
		assertThat(this.xForwardedFor.resolve(request)).isEqualTo(ClientAddressResolver.UNKNOWN);
	}

	private static ClientAddressResolver resolver(ForwardedHeader header, String... cidrs) {
		return new ClientAddressResolver(
				new TrustedProxies(List.of(cidrs).stream().map(TrustedProxies.Block::parse).toList(), header));
	}

	private static ServerHttpRequest request(String remote, String... headers) {
		MockServerHttpRequest.BaseBuilder<?> builder = MockServerHttpRequest.get("/")
			.remoteAddress(new InetSocketAddress(remote, 443));
		for (int i = 0; i < headers.length; i += 2) {
			builder.header(headers[i], headers[i + 1]);
		}
		return builder.build();
	}

}
