package dev.ratelimit.gateway;

import java.time.Duration;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LimitDescriptionTests {

	@Test
	void windowLimitDetailMatchesTheSeed() {
		LimitDescription description = LimitDescription.of("orders", "pro", 0,
				new SlidingWindowCounter(100, Duration.ofMinutes(1)));
		assertThat(description.detail()).isEqualTo("You have exceeded the rate limit of 100 requests per minute.");
		assertThat(description.name()).isEqualTo("orders-pro-1");
		assertThat(description.draft06Policy()).isEqualTo("100;w=60");
		assertThat(description.draft11Policy()).isEqualTo("\"orders-pro-1\";q=100;w=60");
	}

	@Test
	void bucketsDescribeTheirRateAndSize() {
		assertThat(LimitDescription.rate(new TokenBucket(10, 2, Duration.ofSeconds(1))))
			.isEqualTo("2 requests per second, with bursts of up to 10");
		assertThat(LimitDescription.rate(new TokenBucket(5, 1, Duration.ofMinutes(1))))
			.isEqualTo("1 request per minute, with bursts of up to 5");
		assertThat(LimitDescription.rate(new LeakyBucket(3, 0.5, Duration.ofSeconds(1))))
			.isEqualTo("0.5 requests per second, with a queue of 3");
	}

	@Test
	void periodsReadAsEnglish() {
		assertThat(LimitDescription.period(Duration.ofSeconds(1))).isEqualTo("second");
		assertThat(LimitDescription.period(Duration.ofHours(1))).isEqualTo("hour");
		assertThat(LimitDescription.period(Duration.ofDays(1))).isEqualTo("day");
		assertThat(LimitDescription.period(Duration.ofMinutes(5))).isEqualTo("5 minutes");
		assertThat(LimitDescription.period(Duration.ofSeconds(90))).isEqualTo("90 seconds");
		assertThat(LimitDescription.period(Duration.ofMillis(500))).isEqualTo("500 ms");
		assertThat(LimitDescription.period(Duration.ofMillis(1500))).isEqualTo("1500 ms");
	}

	@Test
	void subSecondWindowAdvertisesOneSecond() {
		LimitDescription description = LimitDescription.of("p", "t", 2,
				new SlidingWindowLog(5, Duration.ofMillis(500)));
		assertThat(description.windowSeconds()).isEqualTo("1");
		assertThat(description.detail()).isEqualTo("You have exceeded the rate limit of 5 requests per 500 ms.");
	}

	@Test
	void bucketWindowIsTheTimeToRefillFromEmpty() {
		assertThat(LimitDescription.of("p", "t", 0, new TokenBucket(10, 2, Duration.ofSeconds(1))).windowSeconds())
			.isEqualTo("5");
		assertThat(LimitDescription.of("p", "t", 0, new FixedWindow(1, Duration.ofDays(1))).windowSeconds())
			.isEqualTo("86400");
	}

}
