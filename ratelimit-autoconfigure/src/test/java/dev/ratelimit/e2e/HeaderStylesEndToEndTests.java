package dev.ratelimit.e2e;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

import dev.ratelimit.support.ManualClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each header style through a real gateway, on allowed and rejected responses alike.
 */
class HeaderStylesEndToEndTests {

	private static final Set<String> RATE_LIMIT_HEADERS = Set.of("ratelimit-limit", "ratelimit-remaining",
			"ratelimit-reset", "x-ratelimit-policy", "ratelimit-policy", "ratelimit", "x-ratelimit-limit",
			"x-ratelimit-remaining", "x-ratelimit-reset");

	private static final Upstream upstream = Upstream.start();

	@AfterAll
	static void stopUpstream() {
		upstream.close();
	}

	@Test
	void draft06() {
		Map<String, String> allowed = firstAndRejected("draft-06", this::assertRetryAfter);
		assertThat(allowed).containsOnly(Map.entry("ratelimit-limit", "2"), Map.entry("ratelimit-remaining", "1"),
				Map.entry("ratelimit-reset", "60"), Map.entry("ratelimit-policy", "2;w=60, 100;w=86400"));
	}

	@Test
	void draft11() {
		Map<String, String> allowed = firstAndRejected("draft-11", this::assertRetryAfter);
		assertThat(allowed).containsOnly(
				Map.entry("ratelimit-policy", "\"p-anonymous-1\";q=2;w=60, \"p-anonymous-2\";q=100;w=86400"),
				Map.entry("ratelimit", "\"p-anonymous-1\";r=1;t=60, \"p-anonymous-2\";r=99;t=86400"));
	}

	@Test
	void xRateLimit() {
		Map<String, String> allowed = firstAndRejected("x-ratelimit", this::assertRetryAfter);
		assertThat(allowed).containsOnly(Map.entry("x-ratelimit-limit", "2"), Map.entry("x-ratelimit-remaining", "1"),
				Map.entry("x-ratelimit-reset", "60"));
	}

	@Test
	void none() {
		Map<String, String> allowed = firstAndRejected("none", this::assertRetryAfter);
		assertThat(allowed).isEmpty();
	}

	private void assertRetryAfter(EntityExchangeResult<byte[]> rejected) {
		assertThat(rejected.getStatus()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(rejected.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("60");
	}

	/**
	 * Sends three requests to a route limited to two per minute (and 100 a day) in the
	 * given style; checks the rejection and that it carries the same header names as an
	 * allowed response; returns the rate limit headers of the first response.
	 */
	private Map<String, String> firstAndRejected(String style,
			Consumer<EntityExchangeResult<byte[]>> rejectedCheck) {
		try (GatewayRunner gateway = GatewayRunner.start("ratelimit.headers=" + style,
				"ratelimit.policies.p.key=ip",
				"ratelimit.policies.p.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.p.tiers.anonymous[0].limit=2",
				"ratelimit.policies.p.tiers.anonymous[0].window=1m",
				"ratelimit.policies.p.tiers.anonymous[1].algorithm=fixed-window",
				"ratelimit.policies.p.tiers.anonymous[1].limit=100",
				"ratelimit.policies.p.tiers.anonymous[1].window=1d",
				"spring.cloud.gateway.server.webflux.routes[0].id=p",
				"spring.cloud.gateway.server.webflux.routes[0].uri=" + upstream.uri(),
				"spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/p/**",
				"spring.cloud.gateway.server.webflux.routes[0].filters[0]=RateLimit=p")) {
			gateway.bean(ManualClock.class).advanceToMultipleOf(Duration.ofDays(1));
			WebTestClient client = gateway.client();
			EntityExchangeResult<byte[]> first = client.get().uri("/p/" + style).exchange().expectBody().returnResult();
			assertThat(first.getStatus()).as(new String(first.getResponseBodyContent())).isEqualTo(HttpStatus.OK);
			client.get().uri("/p/" + style).exchange().expectStatus().isOk().expectBody(Void.class);
			EntityExchangeResult<byte[]> rejected = client.get()
				.uri("/p/" + style)
				.exchange()
				.expectBody()
				.returnResult();
			rejectedCheck.accept(rejected);
			assertThat(rateLimitHeaders(rejected).keySet()).isEqualTo(rateLimitHeaders(first).keySet());
			assertThat(upstream.hits("/p/" + style)).isEqualTo(2);
			return rateLimitHeaders(first);
		}
	}

	private static Map<String, String> rateLimitHeaders(EntityExchangeResult<byte[]> result) {
		Map<String, String> headers = new TreeMap<>();
		result.getResponseHeaders().forEach((name, values) -> {
			if (RATE_LIMIT_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
				headers.put(name.toLowerCase(Locale.ROOT), String.join(",", values));
			}
		});
		return headers;
	}

}
