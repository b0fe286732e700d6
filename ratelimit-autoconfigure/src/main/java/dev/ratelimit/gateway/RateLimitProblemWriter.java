package dev.ratelimit.gateway;

import java.net.URI;
import java.util.List;
import java.util.Map;

import reactor.core.publisher.Mono;

import org.springframework.core.ResolvableType;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;

/**
 * Writes the 429 response: {@code Retry-After} and an RFC 9457
 * {@code application/problem+json} body, encoded by the application's own JSON codec.
 */
final class RateLimitProblemWriter {

	static final String TITLE = "Rate limit exceeded";

	static final String RETRY_AFTER_PROPERTY = "retryAfter";

	/**
	 * The names of the limits that rejected, as the quota-exceeded problem type defines
	 * it (draft-ietf-httpapi-ratelimit-headers-11 section 5.1); an extension member
	 * (RFC 9457 section 3.2).
	 */
	static final String VIOLATED_POLICIES_PROPERTY = "violated-policies";

	private static final ResolvableType PROBLEM_DETAIL = ResolvableType.forClass(ProblemDetail.class);

	private final HttpMessageWriter<ProblemDetail> writer;

	private final URI type;

	/**
	 * @param writers the application's message writers
	 * @param type the problem type of every rejection, an absolute URI (RFC 9457
	 * section 3.1.1)
	 */
	@SuppressWarnings("unchecked")
	RateLimitProblemWriter(List<HttpMessageWriter<?>> writers, URI type) {
		this.writer = (HttpMessageWriter<ProblemDetail>) writers.stream()
			.filter((candidate) -> candidate.canWrite(PROBLEM_DETAIL, MediaType.APPLICATION_PROBLEM_JSON))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No HTTP message writer can write "
					+ "application/problem+json; the RateLimit filter needs a JSON codec such as Jackson"));
		this.type = type;
	}

	/**
	 * Reject the exchange. {@code Retry-After} is delay-seconds (RFC 9110 section
	 * 10.2.3), like the rate limit headers' resets, so that both reference the same
	 * instant. A {@code HEAD} request gets the status and headers without a body
	 * (RFC 9110 section 9.3.2).
	 */
	Mono<Void> reject(ServerWebExchange exchange, String detail, long retryAfterSeconds,
			List<String> violatedPolicies) {
		ServerHttpResponse response = exchange.getResponse();
		response.setStatusCode(HttpStatus.TOO_MANY_REQUESTS);
		response.getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, detail);
		problem.setType(this.type);
		problem.setTitle(TITLE);
		problem.setInstance(URI.create(exchange.getRequest().getURI().getRawPath()));
		problem.setProperty(RETRY_AFTER_PROPERTY, retryAfterSeconds);
		problem.setProperty(VIOLATED_POLICIES_PROPERTY, violatedPolicies);
		return this.writer.write(Mono.just(problem), PROBLEM_DETAIL, MediaType.APPLICATION_PROBLEM_JSON, response,
				Map.of());
	}

	/**
	 * Answers a request that lacks the key its route is limited by: {@code status} and a
	 * problem body, no rate limit headers, as no quota was consulted.
	 */
	Mono<Void> rejectMissingKey(ServerWebExchange exchange, HttpStatusCode status, String detail) {
		ServerHttpResponse response = exchange.getResponse();
		response.setStatusCode(status);
		// No problem type of its own: a type must be a URI its publisher controls (RFC
		// 9457 section 4), and the status says enough, so "about:blank", whose title is
		// the status phrase (section 4.2.1), as ProblemDetail fills it in.
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setInstance(URI.create(exchange.getRequest().getURI().getRawPath()));
		return this.writer.write(Mono.just(problem), PROBLEM_DETAIL, MediaType.APPLICATION_PROBLEM_JSON, response,
				Map.of());
	}

}
