package dev.ratelimit.policy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DurationFormatTests {

	@Test
	void writesTheLargestWholeUnit() {
		assertThat(DurationFormat.asConfigured(Duration.ofDays(1))).isEqualTo("1d");
		assertThat(DurationFormat.asConfigured(Duration.ofHours(36))).isEqualTo("36h");
		assertThat(DurationFormat.asConfigured(Duration.ofMinutes(1))).isEqualTo("1m");
		assertThat(DurationFormat.asConfigured(Duration.ofSeconds(90))).isEqualTo("90s");
		assertThat(DurationFormat.asConfigured(Duration.ofMillis(500))).isEqualTo("500ms");
		assertThat(DurationFormat.asConfigured(Duration.ofNanos(1500))).isEqualTo("1500ns");
	}

	@Test
	void writesZeroAndNegativeDurationsAsAnOperatorWouldHaveConfiguredThem() {
		assertThat(DurationFormat.asConfigured(Duration.ZERO)).isEqualTo("0s");
		assertThat(DurationFormat.asConfigured(Duration.ofSeconds(-5))).isEqualTo("-5s");
	}

	@Test
	void writesPeriodsInWordsForClients() {
		assertThat(DurationFormat.inWords(Duration.ofSeconds(1))).isEqualTo("second");
		assertThat(DurationFormat.inWords(Duration.ofHours(1))).isEqualTo("hour");
		assertThat(DurationFormat.inWords(Duration.ofDays(1))).isEqualTo("day");
		assertThat(DurationFormat.inWords(Duration.ofMinutes(5))).isEqualTo("5 minutes");
		assertThat(DurationFormat.inWords(Duration.ofSeconds(90))).isEqualTo("90 seconds");
		assertThat(DurationFormat.inWords(Duration.ofMillis(500))).isEqualTo("500 ms");
		assertThat(DurationFormat.inWords(Duration.ofMillis(1500))).isEqualTo("1500 ms");
		assertThat(DurationFormat.inWords(Duration.ofNanos(1500))).isEqualTo("1500 ns");
	}

}
