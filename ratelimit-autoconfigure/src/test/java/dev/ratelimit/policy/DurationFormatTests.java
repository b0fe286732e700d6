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
	void givesTheAmountOfTheLargestWholeUnitForSentences() {
		assertThat(DurationFormat.inLargestWholeUnit(Duration.ofSeconds(1)))
			.isEqualTo(new DurationFormat.Amount(1, DurationFormat.Unit.SECONDS));
		assertThat(DurationFormat.inLargestWholeUnit(Duration.ofHours(1)))
			.isEqualTo(new DurationFormat.Amount(1, DurationFormat.Unit.HOURS));
		assertThat(DurationFormat.inLargestWholeUnit(Duration.ofDays(1)))
			.isEqualTo(new DurationFormat.Amount(1, DurationFormat.Unit.DAYS));
		assertThat(DurationFormat.inLargestWholeUnit(Duration.ofMinutes(5)))
			.isEqualTo(new DurationFormat.Amount(5, DurationFormat.Unit.MINUTES));
		assertThat(DurationFormat.inLargestWholeUnit(Duration.ofSeconds(90)))
			.isEqualTo(new DurationFormat.Amount(90, DurationFormat.Unit.SECONDS));
		assertThat(DurationFormat.inLargestWholeUnit(Duration.ofMillis(1500)))
			.isEqualTo(new DurationFormat.Amount(1500, DurationFormat.Unit.MILLISECONDS));
		assertThat(DurationFormat.inLargestWholeUnit(Duration.ofNanos(1500)))
			.isEqualTo(new DurationFormat.Amount(1500, DurationFormat.Unit.NANOSECONDS));
		assertThat(DurationFormat.Unit.MILLISECONDS.pluralName()).isEqualTo("milliseconds");
	}

}
