package dev.ratelimit.web;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.web.Draft11Fields.ServiceLimit;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitHeadersTests {

	private static final long SECOND = 1_000_000_000L;

	private static final Tier FREE = new Tier("free",
			List.of(new TokenBucket(10, 2, Duration.ofSeconds(1)), new FixedWindow(10000, Duration.ofDays(1))));

	private final List<LimitDescription> limits = List.of(LimitDescription.of("orders", FREE, 0),
			LimitDescription.of("orders", FREE, 1));

	/**
	 * The bucket has 9 left and its next token in half a second; the day has 67 left
	 * for 43 more seconds.
	 */
	private final Verdict allowed = Verdict.of(new Decision(true, 9, 10, SECOND / 2, 0),
			new Decision(true, 67, 10000, 43 * SECOND - 1, 0));

	@Test
	void draft06ReportsTheLimitWithLeastRemainingAndListsEveryPolicy() {
		HttpHeaders headers = write(HeaderStyle.DRAFT_06, this.allowed);
		assertThat(headers.toSingleValueMap()).containsOnly(entry("RateLimit-Limit", "10"),
				entry("RateLimit-Remaining", "9"), entry("RateLimit-Reset", "1"),
				entry("RateLimit-Policy", "10;w=5, 10000;w=86400"));
	}

	@Test
	void draft06ReportsTheDayOnceItHasLessLeft() {
		HttpHeaders headers = write(HeaderStyle.DRAFT_06,
				Verdict.of(new Decision(true, 9, 10, SECOND / 2, 0), new Decision(true, 3, 10000, 43 * SECOND, 0)));
		assertThat(headers.getFirst("RateLimit-Limit")).isEqualTo("10000");
		assertThat(headers.getFirst("RateLimit-Remaining")).isEqualTo("3");
		assertThat(headers.getFirst("RateLimit-Reset")).isEqualTo("43");
	}

	@Test
	void draft11ListsEveryLimitLeastRemainingFirst() {
		HttpHeaders headers = write(HeaderStyle.DRAFT_11,
				Verdict.of(new Decision(true, 9, 10, SECOND / 2, 0), new Decision(true, 3, 10000, 43 * SECOND, 0)));
		assertThat(headers.toSingleValueMap()).containsOnly(
				entry("RateLimit-Policy", "\"orders-free-1\";q=10;w=5, \"orders-free-2\";q=10000;w=86400"),
				entry("RateLimit", "\"orders-free-2\";r=3;t=43, \"orders-free-1\";r=9;t=1"));
		assertThat(Draft11Fields.of(headers).serviceLimits()).containsExactly(new ServiceLimit("orders-free-2", 3, 43),
				new ServiceLimit("orders-free-1", 9, 1));
	}

	@Test
	void draft11OnARejectionPutsTheRejectingLimitFirst() {
		Verdict rejected = Verdict.of(Decision.rejected(0, 10, SECOND / 2), new Decision(true, 0, 10000, 43 * SECOND, 0));
		HttpHeaders headers = write(HeaderStyle.DRAFT_11, rejected);
		assertThat(headers.getFirst("RateLimit")).isEqualTo("\"orders-free-1\";r=0;t=1, \"orders-free-2\";r=0;t=43");
	}

	@Test
	void draft11WithOneLimitIsOneItem() {
		Tier tier = new Tier("anonymous", List.of(new FixedWindow(60, Duration.ofMinutes(1))));
		HttpHeaders headers = new HttpHeaders();
		RateLimitHeaders.of(HeaderStyle.DRAFT_11, List.of(LimitDescription.of("orders", tier, 0)), MonotonicClock.SYSTEM)
			.write(headers, Verdict.of(new Decision(true, 59, 60, 12 * SECOND, 0)));
		assertThat(headers.toSingleValueMap()).containsOnly(entry("RateLimit-Policy", "\"orders-anonymous-1\";q=60;w=60"),
				entry("RateLimit", "\"orders-anonymous-1\";r=59;t=12"));
	}

	@Test
	void xRateLimitWritesTheDeFactoTrio() {
		HttpHeaders headers = write(HeaderStyle.X_RATELIMIT, this.allowed);
		assertThat(headers.toSingleValueMap()).containsOnly(entry("X-RateLimit-Limit", "10"),
				entry("X-RateLimit-Remaining", "9"), entry("X-RateLimit-Reset", "1"));
	}

	@Test
	void noneWritesNothing() {
		assertThat(write(HeaderStyle.NONE, this.allowed).isEmpty()).isTrue();
	}

	@Test
	void rewritingReplacesRatherThanAppends() {
		HttpHeaders headers = new HttpHeaders();
		RateLimitHeaders writer = RateLimitHeaders.of(HeaderStyle.DRAFT_06, this.limits, MonotonicClock.SYSTEM);
		writer.write(headers, this.allowed);
		writer.write(headers, Verdict.of(Decision.rejected(0, 10, SECOND), new Decision(true, 5, 10000, SECOND, 0)));
		assertThat(headers.get("RateLimit-Limit")).containsExactly("10");
		assertThat(headers.get("RateLimit-Remaining")).containsExactly("0");
		assertThat(headers.get("RateLimit-Policy")).containsExactly("10;w=5, 10000;w=86400");
	}

	private HttpHeaders write(HeaderStyle style, Verdict verdict) {
		HttpHeaders headers = new HttpHeaders();
		RateLimitHeaders.of(style, this.limits, MonotonicClock.SYSTEM).write(headers, verdict);
		return headers;
	}

	private static Map.Entry<String, String> entry(String name, String value) {
		return Map.entry(name, value);
	}

}
