package dev.ratelimit.actuate;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link KeyMasker}.
 */
class KeyMaskerTests {

	private final KeyMasker masker = new KeyMasker(ShowKeys.NEVER, 4);

	@Test
	void masksKeyAsPrefixEllipsisAndEightHexDigitsOfSha256() {
		// echo -n demo-pro-key | sha256sum: 1fbfd5e2a34698de...
		assertThat(this.masker.display("demo-pro-key")).isEqualTo("demo…1fbfd5e2");
	}

	@Test
	void maskIsStableAndDiffersBetweenKeys() {
		assertThat(this.masker.display("203.0.113.7")).isEqualTo(this.masker.display("203.0.113.7"))
			.isNotEqualTo(this.masker.display("203.0.113.8"));
	}

	@Test
	void neverShowsMoreThanHalfOfAShortKey() {
		assertThat(this.masker.display("abc")).startsWith("a…").doesNotContain("abc");
		assertThat(this.masker.display("k")).startsWith("…");
	}

	@Test
	void showsKeysAsTheyAreWhenAskedToAlways() {
		assertThat(new KeyMasker(ShowKeys.ALWAYS, 4).display("demo-pro-key")).isEqualTo("demo-pro-key");
	}

	@Test
	void rejectsNegativePrefixLength() {
		assertThatIllegalArgumentException().isThrownBy(() -> new KeyMasker(ShowKeys.NEVER, -1))
			.withMessageContaining("-1");
	}

}
