package dev.ratelimit.web;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

import dev.ratelimit.web.StructuredFieldParser.InnerList;
import dev.ratelimit.web.StructuredFieldParser.Member;
import dev.ratelimit.web.StructuredFieldParser.Token;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The test suite's Structured Fields parser accepts what RFC 9651 section 4.2 accepts
 * and fails what it fails, so that a field it parses is one a client parses.
 */
class StructuredFieldParserTests {

	@Test
	void parsesTheDraftsExamples() {
		assertThat(StructuredFieldParser.parseList("\"burst\";q=100;w=60,\"daily\";q=1000;w=86400")).containsExactly(
				new Member("burst", Map.of("q", 100L, "w", 60L)), new Member("daily", Map.of("q", 1000L, "w", 86400L)));
		assertThat(StructuredFieldParser.parseList("  \"default\";r=50;t=30  "))
			.containsExactly(new Member("default", Map.of("r", 50L, "t", 30L)));
	}

	@Test
	void parsesEveryItemType() {
		List<Member> members = StructuredFieldParser
			.parseList("tok/en:x, -12.5, ?0, (1 \"a\");p, :aGk=:;k=?1, @1659578233, %\"g%c3%b6\"");
		assertThat(members.get(0).value()).isEqualTo(new Token("tok/en:x"));
		assertThat(members.get(1).value()).isEqualTo(new BigDecimal("-12.5"));
		assertThat(members.get(2).value()).isEqualTo(false);
		assertThat(members.get(3).value()).isEqualTo(new InnerList(
				List.of(new Member(1L, Map.of()), new Member("a", Map.of()))));
		assertThat(members.get(3).parameters()).containsEntry("p", true);
		assertThat((byte[]) members.get(4).value()).containsExactly('h', 'i');
		assertThat(members.get(5).value()).isEqualTo(new StructuredFieldParser.Date(1659578233));
		assertThat(members.get(6).value()).isEqualTo(new StructuredFieldParser.DisplayString("g\u00f6"));
	}

	@Test
	void unescapesStrings() {
		assertThat(StructuredFieldParser.parseList("\"a \\\"b\\\" \\\\ c\"").get(0).value()).isEqualTo("a \"b\" \\ c");
	}

	@Test
	void combinesFieldLines() {
		assertThat(StructuredFieldParser.parseList(List.of("\"a\";r=1", "\"b\";r=2"))).hasSize(2);
	}

	@ParameterizedTest
	@ValueSource(strings = { "\"g\u00f6\";r=1", "\"unterminated", "\"a\";r=1,", "\"a\";r=1,,\"b\"", "\"a\" \"b\"",
			"\"a\";R=1", "\"a\";r=1234567890123456", "\"a\";r=1.2345", "\"a\\n\"", "\"a\";r=", "\"a\";r=-",
			"'a'", "\"tab\there\"", "(1 2", "?2", "%\"%zz\"" })
	void failsWhatTheRfcFails(String value) {
		assertThatIllegalArgumentException().isThrownBy(() -> StructuredFieldParser.parseList(value));
	}

	@Test
	void draft11FieldsMustFollowTheDraft() {
		assertThat(Draft11Fields.of(headers("\"a\";q=10;w=1", "\"a\";r=3;t=0")).serviceLimit("a").remaining())
			.isEqualTo(3);
		for (String[] invalid : new String[][] { { "a;q=10;w=1", "a;r=3;t=0" }, { "\"a\";q=10;w=0", "\"a\";r=3;t=0" },
				{ "\"a\";q=10;w=1", "\"a\";r=-3;t=0" }, { "\"a\";q=10;w=1", "\"b\";r=3;t=0" },
				{ "\"a\";q=10;w=1", "\"a\";r=3" }, { "\"a\";q=1.5;w=1", "\"a\";r=1;t=1" },
				{ "\"a\";q=10;w=1, \"a\";q=20;w=1", "\"a\";r=3;t=0" } }) {
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> Draft11Fields.of(headers(invalid[0], invalid[1])));
		}
	}

	private static HttpHeaders headers(String policy, String rateLimit) {
		HttpHeaders headers = new HttpHeaders();
		headers.set("RateLimit-Policy", policy);
		headers.set("RateLimit", rateLimit);
		return headers;
	}

}
