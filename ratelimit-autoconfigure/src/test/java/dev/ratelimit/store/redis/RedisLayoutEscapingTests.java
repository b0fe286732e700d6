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
class RedisLayoutEscapingTests {

	@Property(tries = 2000)
	void escapingIsReversibleAndLeavesNoStructuringCharacter(@ForAll("keys") String key) {
		String escaped = RedisLayout.escape(key);
		assertThat(RedisLayout.unescape(escaped)).contains(key);
		assertThat(escaped).doesNotContain(":", "{", "}", "*", "?", "[", "]", "\\");
	}

	@Property(tries = 2000)
	void onlyEscapedTextUnescapes(@ForAll("keys") String text) {
		RedisLayout.unescape(text)
			.ifPresent((unescaped) -> assertThat(RedisLayout.escape(unescaped)).isEqualTo(text));
	}

	@Example
	void plainKeysAreKeptAsTheyAre() {
		String key = "203.0.113.7";
		assertThat(RedisLayout.escape(key)).isSameAs(key);
		assertThat(RedisLayout.escape("2001:db8::1")).isEqualTo("2001%3Adb8%3A%3A1");
		assertThat(RedisLayout.escape("a}:m")).isEqualTo("a%7D%3Am");
		assertThat(RedisLayout.unescape("a%7d")).isEmpty();
		assertThat(RedisLayout.unescape("a%4")).isEmpty();
		assertThat(RedisLayout.unescape("a%41")).isEmpty();
		assertThat(RedisLayout.unescape("a:b")).isEmpty();
	}

	@Provide
	Arbitrary<String> keys() {
		return Arbitraries.oneOf(Arbitraries.strings().withChars("%:{}*?[]\\aA7xF").ofMaxLength(20),
				Arbitraries.strings().all().ofMaxLength(20));
	}

}
