package dev.ratelimit.store.redis;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The escaping of Redis key parts: reversible, so no two client keys share a Redis
 * key, and free of every character that structures a key or a glob.
 */
class TierLayoutEscapingTests {

	@Property(tries = 2000)
	void escapingIsReversibleAndLeavesNoStructuringCharacter(@ForAll("keys") String key) {
		String escaped = TierLayout.escape(key);
		assertThat(TierLayout.unescape(escaped)).contains(key);
		assertThat(escaped).doesNotContain(":", "{", "}", "*", "?", "[", "]", "\\");
	}

	@Property(tries = 2000)
	void onlyEscapedTextUnescapes(@ForAll("keys") String text) {
		TierLayout.unescape(text)
			.ifPresent((unescaped) -> assertThat(TierLayout.escape(unescaped)).isEqualTo(text));
	}

	@Example
	void plainKeysAreKeptAsTheyAre() {
		String key = "203.0.113.7";
		assertThat(TierLayout.escape(key)).isSameAs(key);
		assertThat(TierLayout.escape("2001:db8::1")).isEqualTo("2001%3Adb8%3A%3A1");
		assertThat(TierLayout.escape("a}:m")).isEqualTo("a%7D%3Am");
		assertThat(TierLayout.unescape("a%7d")).isEmpty();
		assertThat(TierLayout.unescape("a%4")).isEmpty();
		assertThat(TierLayout.unescape("a%41")).isEmpty();
		assertThat(TierLayout.unescape("a:b")).isEmpty();
	}

	@Provide
	Arbitrary<String> keys() {
		return Arbitraries.oneOf(Arbitraries.strings().withChars("%:{}*?[]\\aA7xF").ofMaxLength(20),
				Arbitraries.strings().all().ofMaxLength(20));
	}

}
