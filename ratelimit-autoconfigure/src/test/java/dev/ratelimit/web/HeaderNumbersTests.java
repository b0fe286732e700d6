package dev.ratelimit.web;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HeaderNumbersTests {

	@Test
	void writesEveryValueAsLongToStringDoes() {
		for (long value : new long[] { 0, 1, 9, 10, 999, 1023, 1024, 1_000_000_000L, Long.MAX_VALUE, -1,
				Long.MIN_VALUE }) {
			assertThat(HeaderNumbers.of(value)).isEqualTo(Long.toString(value));
		}
	}

	@Test
	void sharesTheSmallValuesAndWritesTheOthersAfresh() {
		assertThat(HeaderNumbers.of(0)).isSameAs(HeaderNumbers.of(0));
		assertThat(HeaderNumbers.of(1023)).isSameAs(HeaderNumbers.of(1023));
		assertThat(HeaderNumbers.of(1024)).isNotSameAs(HeaderNumbers.of(1024));
	}

}
