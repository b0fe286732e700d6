package dev.ratelimit.web;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.algorithm.Concurrency;
import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.support.MonotonicClock;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * What each header style says of a limit of requests in flight, which has a quota of
 * concurrent requests and neither a window nor a reset: draft-11 names its quota unit,
 * draft-06 and {@code X-RateLimit-*} describe the tier's rate limit in their three
 * fields, since theirs need a window.
 */
class ConcurrencyHeadersTests {

	private static final long SECOND = 1_000_000_000L;

	private static final Tier MIXED = new Tier("free",
			List.of(new Concurrency(2), new FixedWindow(100, Duration.ofMinutes(1))));

	private static final Tier ONLY_IN_FLIGHT = new Tier("free", List.of(new Concurrency(2)));

	/**
	 * One slot of two left, 90 of 100 in the minute, 30 s to go.
	 */
	private final Verdict mixed = Verdict.of(new Decision(true, 1, 2, 0, 0),
			new Decision(true, 90, 100, 30 * SECOND, 0));

	@Test
	void draft11NamesTheQuotaUnitOfConcurrentRequestsWithoutAWindowOrAReset() {
		HttpHeaders headers = write(HeaderStyle.DRAFT_11, MIXED, this.mixed);
		assertThat(headers.toSingleValueMap()).containsOnly(
				entry("RateLimit-Policy",
						"\"orders-free-1\";q=2;qu=\"concurrent-requests\", \"orders-free-2\";q=100;w=60"),
				entry("RateLimit", "\"orders-free-1\";r=1, \"orders-free-2\";r=90;t=30"));
	}

	@Test
	void draft06DescribesTheRateLimitEvenWhenTheSlotsAreTighter() {
		HttpHeaders headers = write(HeaderStyle.DRAFT_06, MIXED, this.mixed);
		assertThat(headers.toSingleValueMap()).containsOnly(entry("RateLimit-Limit", "100"),
				entry("RateLimit-Remaining", "90"), entry("RateLimit-Reset", "30"),
				entry("RateLimit-Policy", "100;w=60"));
	}

	@Test
	void draft06OfOnlySlotsSendsNoResetAndNoPolicy() {
		HttpHeaders headers = write(HeaderStyle.DRAFT_06, ONLY_IN_FLIGHT, new Decision(true, 1, 2, 0, 0));
		assertThat(headers.toSingleValueMap()).containsOnly(entry("RateLimit-Limit", "2"),
				entry("RateLimit-Remaining", "1"));
	}

	@Test
	void xRateLimitDescribesTheRateLimitAndOfOnlySlotsSendsNoReset() {
		assertThat(write(HeaderStyle.X_RATELIMIT, MIXED, this.mixed).toSingleValueMap()).containsOnly(
				entry("X-RateLimit-Limit", "100"), entry("X-RateLimit-Remaining", "90"),
				entry("X-RateLimit-Reset", "30"));
		assertThat(write(HeaderStyle.X_RATELIMIT, ONLY_IN_FLIGHT, new Decision(true, 0, 2, 0, 0)).toSingleValueMap())
			.containsOnly(entry("X-RateLimit-Limit", "2"), entry("X-RateLimit-Remaining", "0"));
	}

	private static HttpHeaders write(HeaderStyle style, Tier tier, Verdict verdict) {
		List<LimitDescription> limits = new ArrayList<>();
		for (int i = 0; i < tier.limits().size(); i++) {
			limits.add(LimitDescription.of("orders", tier, i));
		}
		HttpHeaders headers = new HttpHeaders();
		RateLimitHeaders.of(style, limits, MonotonicClock.SYSTEM).write(headers, verdict);
		return headers;
	}

}
