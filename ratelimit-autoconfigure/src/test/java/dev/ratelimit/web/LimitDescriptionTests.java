package dev.ratelimit.web;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.Tier;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LimitDescriptionTests {

	@Test
	void windowLimitDetailNamesTheLimitAndItsWindow() {
		LimitDescription description = LimitDescription.of("orders",
				tier("pro", new SlidingWindowCounter(100, Duration.ofMinutes(1))), 0);
		assertThat(description.detail()).isEqualTo("You have exceeded the rate limit of 100 requests per minute.");
		assertThat(description.name()).isEqualTo("orders-pro-1");
		assertThat(description.draft06Policy()).isEqualTo("100;w=60");
		assertThat(description.draft11Policy()).isEqualTo("\"orders-pro-1\";q=100;w=60");
	}

	@Test
	void bucketsDescribeTheirRateAndSize() {
		assertThat(detail(new TokenBucket(10, 2, Duration.ofSeconds(1))))
			.isEqualTo("You have exceeded the rate limit of 2 requests per second, with bursts of up to 10.");
		assertThat(detail(new TokenBucket(5, 1, Duration.ofMinutes(1))))
			.isEqualTo("You have exceeded the rate limit of 1 request per minute, with bursts of up to 5.");
		assertThat(detail(new LeakyBucket(3, 0.5, Duration.ofSeconds(1))))
			.isEqualTo("You have exceeded the rate limit of 0.5 requests per second, with a queue of 3.");
	}

	@Test
	void periodsReadAsEnglish() {
		assertThat(RateLimitMessages.DEFAULTS.period(Duration.ofSeconds(1))).isEqualTo("second");
		assertThat(RateLimitMessages.DEFAULTS.period(Duration.ofHours(1))).isEqualTo("hour");
		assertThat(RateLimitMessages.DEFAULTS.period(Duration.ofDays(1))).isEqualTo("day");
		assertThat(RateLimitMessages.DEFAULTS.period(Duration.ofMinutes(5))).isEqualTo("5 minutes");
		assertThat(RateLimitMessages.DEFAULTS.period(Duration.ofSeconds(90))).isEqualTo("90 seconds");
		assertThat(RateLimitMessages.DEFAULTS.period(Duration.ofMillis(500))).isEqualTo("500 ms");
		assertThat(RateLimitMessages.DEFAULTS.period(Duration.ofMillis(1500))).isEqualTo("1500 ms");
		assertThat(RateLimitMessages.DEFAULTS.period(Duration.ofNanos(1500))).isEqualTo("1500 ns");
	}

	@Test
	void subSecondWindowAdvertisesOneSecond() {
		LimitDescription description = LimitDescription.of("p", tier("t", new SlidingWindowLog(5, Duration.ofMillis(500))),
				0);
		assertThat(description.windowSeconds()).isEqualTo("1");
		assertThat(description.detail()).isEqualTo("You have exceeded the rate limit of 5 requests per 500 ms.");
	}

	@Test
	void bucketWindowIsTheTimeToRefillFromEmpty() {
		assertThat(LimitDescription.of("p", tier("t", new TokenBucket(10, 2, Duration.ofSeconds(1))), 0).windowSeconds())
			.isEqualTo("5");
		assertThat(LimitDescription.of("p", tier("t", new FixedWindow(1, Duration.ofDays(1))), 0).windowSeconds())
			.isEqualTo("86400");
	}

	@Test
	void aConfiguredNameReplacesTheDefaultAndIsEscapedAsAString() {
		Tier tier = new Tier("free", List.of(new FixedWindow(10, Duration.ofSeconds(1)),
				new FixedWindow(1000, Duration.ofDays(1))), Arrays.asList("per \"second\" \\ burst", null));
		assertThat(LimitDescription.of("orders", tier, 0).name()).isEqualTo("per \"second\" \\ burst");
		assertThat(LimitDescription.of("orders", tier, 0).draft11Policy())
			.isEqualTo("\"per \\\"second\\\" \\\\ burst\";q=10;w=1");
		assertThat(LimitDescription.of("orders", tier, 1).name()).isEqualTo("orders-free-2");
	}

	@Test
	void largeAmountsAreWrittenWithoutGrouping() {
		assertThat(detail(new FixedWindow(10_000, Duration.ofSeconds(1001))))
			.isEqualTo("You have exceeded the rate limit of 10000 requests per 1001 seconds.");
		assertThat(detail(new FixedWindow(1, Duration.ofNanos(1500))))
			.isEqualTo("You have exceeded the rate limit of 1 request per 1500 ns.");
	}

	private static String detail(Limit limit) {
		return LimitDescription.of("p", tier("t", limit), 0).detail();
	}

	private static Tier tier(String name, Limit limit) {
		return new Tier(name, List.of(limit));
	}

}
