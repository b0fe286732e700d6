package dev.ratelimit.policy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class IpAddressTests {

	@ParameterizedTest
	@CsvSource({ "192.0.2.1, 192.0.2.1", "0.0.0.0, 0.0.0.0", "255.255.255.255, 255.255.255.255",
			"2001:db8::1, 2001:db8:0:0:0:0:0:1", "2001:DB8:0:0:0:0:0:1, 2001:db8:0:0:0:0:0:1", "::, 0:0:0:0:0:0:0:0",
			"::1, 0:0:0:0:0:0:0:1", "1::, 1:0:0:0:0:0:0:0", "1:2:3:4:5:6:7::, 1:2:3:4:5:6:7:0",
			"fe80::1:2, fe80:0:0:0:0:0:1:2", "1:2:3:4:5:6:7:8, 1:2:3:4:5:6:7:8",
			"::ffff:192.0.2.1, 192.0.2.1", "::FFFF:c000:201, 192.0.2.1", "0:0:0:0:0:ffff:192.0.2.1, 192.0.2.1",
			"64:ff9b::192.0.2.1, 64:ff9b:0:0:0:0:c000:201" })
	void parsesLiteralsToTheFormTheRemoteAddressIsKeyedBy(String literal, String formatted) {
		byte[] address = IpAddress.parse(literal);
		assertThat(address).isNotNull();
		assertThat(IpAddress.format(address)).isEqualTo(formatted);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "1.2.3", "1.2.3.4.5", "1.2.3.256", "01.2.3.4", "1.2.3.04", "010.0.0.1", "127.1",
			"0x7f.0.0.1", "2130706433", "1.2.3.4.", ".1.2.3.4", "1..2.3", "1.2.3.-4", "1.2.3.4 ", " 1.2.3.4",
			"１.2.3.4", "1.2.3.4/8", "a.b.c.d", "localhost", "example.com", "1:2:3:4:5:6:7:8:9", "1::2::3", ":1",
			"1:", "1:::2", ":::", "12345::", "fe80::1%eth0", "::ffff:1.2.3", "::ffff:1.2.3.4:5",
			"1:2:3:4:5:6:7:1.2.3.4", "1:2:3:4:5:6:7:8::", "[::1]", "g::1", "unknown", "_hidden",
			"::ffff:0x7f.0.0.1", "0000:0000:0000:0000:0000:ffff:255.255.255.2555" })
	void rejectsAnythingButAStrictLiteral(String text) {
		assertThat(IpAddress.parse(text)).as(text).isNull();
	}

	@ParameterizedTest
	@ValueSource(strings = { "1.2.3.4", "2001:db8::1" })
	void parsesARegionOfLongerText(String literal) {
		String text = "for=" + literal + ";";
		assertThat(IpAddress.parse(text, 4, 4 + literal.length())).isEqualTo(IpAddress.parse(literal));
	}

}
