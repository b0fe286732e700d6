package dev.ratelimit.web;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;
import org.springframework.mock.web.server.MockServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitProblemWriter}.
 */
class RateLimitProblemWriterTests {

	private final RateLimitProblemWriter writer = RequestPathFixture.problemWriter();

	@Test
	void aRequestRefusedBecauseThisNodeHoldsAsManyAsItMayIsAPlainServiceUnavailable() {
		MockServerWebExchange exchange = MockServerWebExchange.from(RequestPathFixture.get());
		// The judge writes Retry-After before the handler is told.
		exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, "3");
		String detail = "This gateway already holds as many requests as it may (10000)";
		this.writer.reject(exchange, new RateLimitRejection(RateLimitRejection.Reason.HOLDS_FULL,
				HttpStatus.SERVICE_UNAVAILABLE, detail, 3, List.of(), "payments", "anonymous", "payments-route"))
			.block();
		MockServerHttpResponse response = exchange.getResponse();
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
		assertThat(response.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(response.getHeaders().get(HttpHeaders.RETRY_AFTER)).containsExactly("3");
		String body = response.getBodyAsString().block();
		// No type: about:blank (RFC 9457 section 3.1.1), the status's own meaning, titled with
		// its reason phrase (section 4.2.1); never the quota-exceeded type or its members.
		assertThat(body).contains("\"status\":503", "\"title\":\"Service Unavailable\"", "\"detail\":\"" + detail + "\"",
				"\"instance\":\"/orders\"")
			.doesNotContain("\"type\"", RequestPathFixture.TYPE.toString(), RateLimitProblemWriter.TITLE,
					RateLimitProblemWriter.RETRY_AFTER_PROPERTY, RateLimitProblemWriter.VIOLATED_POLICIES_PROPERTY);
	}

}
