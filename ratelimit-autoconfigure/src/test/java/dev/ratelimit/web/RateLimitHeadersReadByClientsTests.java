package dev.ratelimit.web;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.algorithm.Concurrency;
import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.client.QuotaPolicy;
import dev.ratelimit.client.RateLimitFields;
import dev.ratelimit.client.ServiceLimit;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.support.MonotonicClock;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The clients of {@code dev.ratelimit.client} read every header style our server writes
 * as it means them.
 */
class RateLimitHeadersReadByClientsTests {

	private static final long SECOND = 1_000_000_000L;

	private static final Tier FREE = new Tier("free",
			List.of(new TokenBucket(10, 2, Duration.ofSeconds(1)), new FixedWindow(10000, Duration.ofDays(1))));

	private static final List<LimitDescription> LIMITS = List.of(LimitDescription.of("orders", FREE, 0),
			LimitDescription.of("orders", FREE, 1));

	/**
	 * The bucket is empty, its next token in half a second; the day has 67 left for 43 s.
	 */
	private static final Verdict EMPTY_BUCKET = Verdict.of(Decision.rejected(0, 10, SECOND / 2),
			new Decision(true, 67, 10000, 43 * SECOND, 0));

	@Test
	void draft06() {
		RateLimitFields fields = read(HeaderStyle.DRAFT_06, LIMITS, EMPTY_BUCKET);
		assertThat(fields.limit()).hasValue(10);
		assertThat(fields.remaining()).hasValue(0);
		assertThat(fields.reset()).isEqualTo(Duration.ofSeconds(1));
		assertThat(fields.quotaPolicies()).containsExactly(new QuotaPolicy(null, 10, Duration.ofSeconds(5), null),
				new QuotaPolicy(null, 10000, Duration.ofDays(1), null));
	}

	@Test
	void draft11() {
		RateLimitFields fields = read(HeaderStyle.DRAFT_11, LIMITS, EMPTY_BUCKET);
		assertThat(fields.serviceLimits()).containsExactly(new ServiceLimit("orders-free-1", 0, Duration.ofSeconds(1)),
				new ServiceLimit("orders-free-2", 67, Duration.ofSeconds(43)));
		assertThat(fields.quotaPolicies()).containsExactly(
				new QuotaPolicy("orders-free-1", 10, Duration.ofSeconds(5), null),
				new QuotaPolicy("orders-free-2", 10000, Duration.ofDays(1), null));
	}

	@Test
	void draft11LimitOfRequestsInFlight() {
		Tier exports = new Tier("anonymous", List.of(new Concurrency(2)));
		RateLimitFields fields = read(HeaderStyle.DRAFT_11, List.of(LimitDescription.of("exports", exports, 0)),
				Verdict.of(new Decision(true, 1, 2, 0, 0)));
		assertThat(fields.serviceLimits()).containsExactly(new ServiceLimit("exports-anonymous-1", 1, null));
		assertThat(fields.quotaPolicies())
			.containsExactly(new QuotaPolicy("exports-anonymous-1", 2, null, "concurrent-requests"));
	}

	@Test
	void draft11NamesWithQuotesAndBackslashes() {
		Tier tier = new Tier("anonymous", List.of(new FixedWindow(5, Duration.ofMinutes(1))), List.of("a \"b\" \\c"));
		RateLimitFields fields = read(HeaderStyle.DRAFT_11, List.of(LimitDescription.of("p", tier, 0)),
				Verdict.of(new Decision(true, 4, 5, 12 * SECOND, 0)));
		assertThat(fields.serviceLimits()).containsExactly(new ServiceLimit("a \"b\" \\c", 4, Duration.ofSeconds(12)));
	}

	private static RateLimitFields read(HeaderStyle style, List<LimitDescription> limits, Verdict verdict) {
		HttpHeaders headers = new HttpHeaders();
		RateLimitHeaders.of(style, limits, MonotonicClock.SYSTEM).write(headers, verdict);
		return RateLimitFields.parse(headers::get);
	}

}
