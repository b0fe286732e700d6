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

	/**
	 * The problem type of every rejection.
	 */
	static final URI TYPE = URI.create("https://ratelimit.dev/problems/rate-limit-exceeded");

	static final String TITLE = "Rate limit exceeded";

	static final String RETRY_AFTER_PROPERTY = "retryAfter";

	/**
	 * The problem type of a request rejected for having no key.
	 */
	static final URI MISSING_KEY_TYPE = URI.create("https://ratelimit.dev/problems/missing-client-key");

	static final String MISSING_KEY_TITLE = "Missing client key";

	private static final ResolvableType PROBLEM_DETAIL = ResolvableType.forClass(ProblemDetail.class);

	private final HttpMessageWriter<ProblemDetail> writer;

	@SuppressWarnings("unchecked")
	RateLimitProblemWriter(List<HttpMessageWriter<?>> writers) {
		this.writer = (HttpMessageWriter<ProblemDetail>) writers.stream()
			.filter((candidate) -> candidate.canWrite(PROBLEM_DETAIL, MediaType.APPLICATION_PROBLEM_JSON))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No HTTP message writer can write "
					+ "application/problem+json; the RateLimit filter needs a JSON codec such as Jackson"));
	}

	Mono<Void> reject(ServerWebExchange exchange, String detail, long retryAfterSeconds) {
		ServerHttpResponse response = exchange.getResponse();
		response.setStatusCode(HttpStatus.TOO_MANY_REQUESTS);
		response.getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, detail);
		problem.setType(TYPE);
		problem.setTitle(TITLE);
		problem.setInstance(URI.create(exchange.getRequest().getURI().getRawPath()));
		problem.setProperty(RETRY_AFTER_PROPERTY, retryAfterSeconds);
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
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setType(MISSING_KEY_TYPE);
		problem.setTitle(MISSING_KEY_TITLE);
		problem.setInstance(URI.create(exchange.getRequest().getURI().getRawPath()));
		return this.writer.write(Mono.just(problem), PROBLEM_DETAIL, MediaType.APPLICATION_PROBLEM_JSON, response,
				Map.of());
	}

}
