package dev.ratelimit.web;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.testsupport.ScriptedStore;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.HtmlUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link RateLimitRejectionHandler} takes over the status and body of a rejection
 * while the rate limit headers and {@code Retry-After} stay the rate limiter's: a
 * company's own error JSON, HTML for browsers, 503 for a store that failed closed.
 */
class RateLimitRejectionHandlerTests {

	private final RequestPathFixture fixture = new RequestPathFixture();

	private final List<RateLimitRejection> rejections = new ArrayList<>();

	@Test
	void aCompanysOwnErrorJsonReplacesTheBodyWhileTheHeadersStay() {
		this.fixture.rejectionHandler = new CompanyErrorJson();
		RequestJudge judge = this.fixture.judge();
		for (int i = 0; i < 2; i++) {
			this.fixture.run(judge, MockServerWebExchange.from(RequestPathFixture.get()));
		}
		MockServerWebExchange rejected = this.fixture.run(judge, MockServerWebExchange.from(RequestPathFixture.get()));
		assertThat(this.fixture.forwarded).hasSize(2);
		assertThat(rejected.getResponse().getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(rejected.getResponse().getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_JSON);
		assertThat(rejected.getResponse().getHeaders().getFirst("Retry-After")).isEqualTo("60");
		assertThat(rejected.getResponse().getHeaders().getFirst("RateLimit-Remaining")).isEqualTo("0");
		assertThat(rejected.getResponse().getHeaders().getFirst("RateLimit-Policy")).isEqualTo("2;w=60");
		assertThat(rejected.getResponse().getBodyAsString().block()).isEqualTo("{\"error\":{\"code\":\"RATE_LIMITED\","
				+ "\"message\":\"You have exceeded the rate limit of 2 requests per minute.\",\"retryIn\":60}}");
		RateLimitRejection rejection = this.rejections.get(0);
		assertThat(rejection.reason()).isEqualTo(RateLimitRejection.Reason.LIMIT_EXCEEDED);
		assertThat(rejection.status()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(rejection.violatedLimits()).containsExactly("orders-per-minute");
		assertThat(rejection.policyId()).isEqualTo("orders");
		assertThat(rejection.tier()).isEqualTo("anonymous");
		assertThat(rejection.routeId()).isEqualTo("orders-route");
		assertThat(rejection.storeFailed()).isFalse();
		assertThat(rejection.missingKey()).isFalse();
	}

	@Test
	void browsersAskingForHtmlGetHtmlAndApiClientsTheDefaultProblem() {
		this.fixture.rejectionHandler = new HtmlForBrowsers(RequestPathFixture.problemWriter());
		RequestJudge judge = this.fixture.judge();
		for (int i = 0; i < 2; i++) {
			this.fixture.run(judge, MockServerWebExchange.from(RequestPathFixture.get()));
		}
		MockServerWebExchange browser = this.fixture.run(judge, MockServerWebExchange
			.from(RequestPathFixture.get().header("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")));
		MockServerWebExchange api = this.fixture.run(judge,
				MockServerWebExchange.from(RequestPathFixture.get().header("Accept", "application/json")));
		assertThat(browser.getResponse().getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(browser.getResponse().getHeaders().getContentType().isCompatibleWith(MediaType.TEXT_HTML))
			.isTrue();
		assertThat(browser.getResponse().getHeaders().getFirst("Retry-After")).isEqualTo("60");
		assertThat(browser.getResponse().getBodyAsString().block())
			.contains("<h1>Slow down</h1>", "<p>You have exceeded the rate limit of 2 requests per minute.</p>",
					"Try again in 60 seconds");
		assertThat(api.getResponse().getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(api.getResponse().getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(api.getResponse().getHeaders().getFirst("Retry-After")).isEqualTo("60");
		assertThat(api.getResponse().getBodyAsString().block()).contains("\"violated-policies\":[\"orders-per-minute\"]");
	}

	@Test
	void aStoreFailingClosedCanBeAnswered503WithItsRetryAfter() {
		this.fixture.store = failClosedStore();
		this.fixture.rejectionHandler = new UnavailableWhenStoreFailed(RequestPathFixture.problemWriter());
		MockServerWebExchange exchange = this.fixture.run(RequestPathFixture.get());
		assertThat(this.fixture.forwarded).isEmpty();
		assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
		assertThat(exchange.getResponse().getHeaders().getFirst("Retry-After")).isEqualTo("5");
		assertThat(exchange.getResponse().getHeaders().getFirst("RateLimit-Remaining")).isNull();
		assertThat(exchange.getResponse().getBodyAsString().block()).contains("\"status\":503",
				"\"detail\":\"" + JudgedTier.UNCHECKED_DETAIL + "\"", "\"violated-policies\":[]");
		assertThat(this.rejections).singleElement().satisfies((rejection) -> {
			assertThat(rejection.storeFailed()).isTrue();
			assertThat(rejection.status()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
			assertThat(rejection.retryAfterSeconds()).isEqualTo(5);
		});
		assertThat(this.fixture.outcomes).containsExactly(Outcome.ERROR);
	}

	@Test
	void theDefaultAnswersAStoreFailingClosedWith429() {
		this.fixture.store = failClosedStore();
		MockServerWebExchange exchange = this.fixture.run(RequestPathFixture.get());
		assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(exchange.getResponse().getHeaders().getFirst("Retry-After")).isEqualTo("5");
	}

	@Test
	void aRequestWithoutItsKeyReachesTheHandlerWithoutRetryAfter() {
		this.fixture.key = new KeySource.Header("X-Tenant");
		this.fixture.onMissingKey = OnMissingKey.REJECT;
		this.fixture.rejectionHandler = new CompanyErrorJson();
		MockServerWebExchange exchange = this.fixture.run(RequestPathFixture.get());
		assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.FORBIDDEN);
		assertThat(exchange.getResponse().getHeaders().getFirst("Retry-After")).isNull();
		assertThat(this.rejections).singleElement().satisfies((rejection) -> {
			assertThat(rejection.missingKey()).isTrue();
			assertThat(rejection.retryAfterSeconds()).isZero();
			assertThat(rejection.violatedLimits()).isEmpty();
			assertThat(rejection.detail()).contains("the X-Tenant header");
		});
	}

	/**
	 * The example of the documentation: a company's own error format.
	 */
	private final class CompanyErrorJson implements RateLimitRejectionHandler {

		@Override
		public Mono<Void> reject(ServerWebExchange exchange, RateLimitRejection rejection) {
			RateLimitRejectionHandlerTests.this.rejections.add(rejection);
			String code = rejection.missingKey() ? "CLIENT_UNKNOWN" : "RATE_LIMITED";
			String json = "{\"error\":{\"code\":\"" + code + "\",\"message\":\"" + rejection.detail()
					+ "\",\"retryIn\":" + rejection.retryAfterSeconds() + "}}";
			ServerHttpResponse response = exchange.getResponse();
			response.setStatusCode(rejection.status());
			response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
			return response.writeWith(Mono.just(buffer(response, json)));
		}

	}

	/**
	 * The example of the documentation: HTML for a browser, the problem for the rest.
	 */
	private static final class HtmlForBrowsers implements RateLimitRejectionHandler {

		private final RateLimitRejectionHandler problems;

		HtmlForBrowsers(RateLimitRejectionHandler problems) {
			this.problems = problems;
		}

		@Override
		public Mono<Void> reject(ServerWebExchange exchange, RateLimitRejection rejection) {
			boolean wantsHtml = exchange.getRequest()
				.getHeaders()
				.getAccept()
				.stream()
				.anyMatch((type) -> type.isPresentIn(List.of(MediaType.TEXT_HTML)));
			if (!wantsHtml) {
				return this.problems.reject(exchange, rejection);
			}
			String html = "<!doctype html><title>Too many requests</title><h1>Slow down</h1><p>"
					+ HtmlUtils.htmlEscape(rejection.detail()) + "</p><p>Try again in "
					+ rejection.retryAfterSeconds() + " seconds.</p>";
			ServerHttpResponse response = exchange.getResponse();
			response.setStatusCode(rejection.status());
			response.getHeaders().setContentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8));
			return response.writeWith(Mono.just(buffer(response, html)));
		}

	}

	/**
	 * The example of the documentation: 503 when the store failed closed.
	 */
	private final class UnavailableWhenStoreFailed implements RateLimitRejectionHandler {

		private final RateLimitRejectionHandler problems;

		UnavailableWhenStoreFailed(RateLimitRejectionHandler problems) {
			this.problems = problems;
		}

		@Override
		public Mono<Void> reject(ServerWebExchange exchange, RateLimitRejection rejection) {
			RateLimitRejectionHandlerTests.this.rejections.add(rejection);
			return this.problems.reject(exchange,
					rejection.storeFailed() ? rejection.withStatus(HttpStatus.SERVICE_UNAVAILABLE) : rejection);
		}

	}

	/**
	 * A store whose backend is down and whose failure mode is deny: every request is
	 * refused for five seconds, without a limit consulted.
	 */
	private static ScriptedStore failClosedStore() {
		ScriptedStore store = new ScriptedStore();
		store.answerNow(() -> Verdict.withoutLimits(false, 5_000_000_000L));
		return store;
	}

	private static DataBuffer buffer(ServerHttpResponse response, String text) {
		return response.bufferFactory().wrap(text.getBytes(StandardCharsets.UTF_8));
	}

}
