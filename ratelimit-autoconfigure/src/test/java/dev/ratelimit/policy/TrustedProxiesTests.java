package dev.ratelimit.policy;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class TrustedProxiesTests {

	@Test
	void matchesAddressesWithinTheirBlocksOnly() {
		TrustedProxies proxies = proxies("10.0.0.0/8", "192.0.2.7", "172.16.0.0/12", "2001:db8::/32",
				"2001:db8:1::7/128", "198.51.100.128/25");
		assertThat(proxies.contains(address("10.1.2.3"))).isTrue();
		assertThat(proxies.contains(address("11.0.0.0"))).isFalse();
		assertThat(proxies.contains(address("192.0.2.7"))).isTrue();
		assertThat(proxies.contains(address("192.0.2.8"))).isFalse();
		assertThat(proxies.contains(address("172.31.255.255"))).isTrue();
		assertThat(proxies.contains(address("172.32.0.0"))).isFalse();
		assertThat(proxies.contains(address("198.51.100.128"))).isTrue();
		assertThat(proxies.contains(address("198.51.100.127"))).isFalse();
		assertThat(proxies.contains(address("2001:db8:ffff::1"))).isTrue();
		assertThat(proxies.contains(address("2001:db9::1"))).isFalse();
		// An IPv4 block never matches an IPv6 address, nor the other way round.
		assertThat(proxies("0.0.0.0/1").contains(address("::1"))).isFalse();
		assertThat(proxies("::/1").contains(address("1.2.3.4"))).isFalse();
	}

	@Test
	void anIpv4MappedBlockIsItsIpv4Block() {
		TrustedProxies proxies = proxies("::ffff:10.0.0.0/104");
		assertThat(proxies.blocks()).containsExactly(TrustedProxies.Block.parse("10.0.0.0/8"));
		assertThat(proxies.contains(address("::ffff:10.9.9.9"))).isTrue();
		assertThat(proxies.contains(address("10.9.9.9"))).isTrue();
	}

	@Test
	void noneTrustsNobody() {
		assertThat(TrustedProxies.NONE.isEmpty()).isTrue();
		assertThat(TrustedProxies.NONE.contains(address("127.0.0.1"))).isFalse();
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = {
			"10.0.0.0/33 | must have a prefix length from 1 to 32 after the '/'",
			"2001:db8::/129 | must have a prefix length from 1 to 128 after the '/'",
			"10.0.0.0/ | must have a prefix length from 1 to 32 after the '/'",
			"10.0.0.0/x | must have a prefix length from 1 to 32 after the '/'",
			"10.0.0.0/-8 | must have a prefix length from 1 to 32 after the '/'",
			"10.0.0.1/8 | must have no address bits set after the prefix (did you mean 10.0.0.0/8?)",
			"2001:db8::1/32 | must have no address bits set after the prefix (did you mean 2001:db8:0:0:0:0:0:0/32?)",
			"0.0.0.0/0 | must not be a /0 block, which would trust every client's forwarding header",
			"::/0 | must not be a /0 block, which would trust every client's forwarding header",
			"::ffff:10.0.0.0/95 | must be at least /96 for an IPv4-mapped address",
			"proxy.internal | must be an IP address or a CIDR block, such as 10.0.0.0/8 or 2001:db8::/32",
			"010.0.0.0/8 | must be an IP address or a CIDR block, such as 10.0.0.0/8 or 2001:db8::/32",
			"fe80::1%eth0 | must be an IP address or a CIDR block, such as 10.0.0.0/8 or 2001:db8::/32" })
	void rejectsWhatIsNotABlockNamingTheRule(String cidr, String rule) {
		assertThatIllegalArgumentException().isThrownBy(() -> TrustedProxies.Block.parse(cidr)).withMessage(rule);
	}

	private static TrustedProxies proxies(String... cidrs) {
		return new TrustedProxies(List.of(cidrs).stream().map(TrustedProxies.Block::parse).toList(),
				ForwardedHeader.X_FORWARDED_FOR);
	}

	private static byte[] address(String literal) {
		return IpAddress.parse(literal);
	}

}
