package dev.ratelimit.gateway;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.TokenBucket;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitHeadersTests {

	private static final long SECOND = 1_000_000_000L;

	private final List<LimitDescription> limits = List.of(
			LimitDescription.of("orders", "free", 0, new TokenBucket(10, 2, Duration.ofSeconds(1))),
			LimitDescription.of("orders", "free", 1, new FixedWindow(10000, Duration.ofDays(1))));

	private final Decision secondLimit = new Decision(true, 67, 10000, 43 * SECOND - 1, 0);

	@Test
	void draft06ReportsOneLimitAndListsEveryPolicy() {
		HttpHeaders headers = write(HeaderStyle.DRAFT_06, 1, this.secondLimit);
		assertThat(headers.toSingleValueMap()).containsOnly(entry("RateLimit-Limit", "10000"),
				entry("RateLimit-Remaining", "67"), entry("RateLimit-Reset", "43"),
				entry("X-RateLimit-Policy", "10;w=5, 10000;w=86400"));
	}

	@Test
	void draft11WritesStructuredFields() {
		HttpHeaders headers = write(HeaderStyle.DRAFT_11, 0, new Decision(true, 3, 10, 3500 * 1_000_000L, 0));
		assertThat(headers.toSingleValueMap()).containsOnly(
				entry("RateLimit-Policy", "\"orders-free-1\";q=10;w=5, \"orders-free-2\";q=10000;w=86400"),
				entry("RateLimit", "\"orders-free-1\";r=3;t=4"));
	}

	@Test
	void xRateLimitWritesTheDeFactoTrio() {
		HttpHeaders headers = write(HeaderStyle.X_RATELIMIT, 1, this.secondLimit);
		assertThat(headers.toSingleValueMap()).containsOnly(entry("X-RateLimit-Limit", "10000"),
				entry("X-RateLimit-Remaining", "67"), entry("X-RateLimit-Reset", "43"));
	}

	@Test
	void noneWritesNothing() {
		assertThat(write(HeaderStyle.NONE, 1, this.secondLimit).isEmpty()).isTrue();
	}

	@Test
	void rewritingReplacesRatherThanAppends() {
		HttpHeaders headers = new HttpHeaders();
		RateLimitHeaders writer = RateLimitHeaders.of(HeaderStyle.DRAFT_06, this.limits);
		writer.write(headers, 1, this.secondLimit);
		writer.write(headers, 0, new Decision(false, 0, 10, SECOND, SECOND));
		assertThat(headers.get("RateLimit-Limit")).containsExactly("10");
		assertThat(headers.get("RateLimit-Remaining")).containsExactly("0");
	}

	private HttpHeaders write(HeaderStyle style, int index, Decision decision) {
		HttpHeaders headers = new HttpHeaders();
		RateLimitHeaders.of(style, this.limits).write(headers, index, decision);
		return headers;
	}

	private static Map.Entry<String, String> entry(String name, String value) {
		return Map.entry(name, value);
	}

}
