package dev.ratelimit.web;

import java.net.URI;
import java.util.List;
import java.util.Map;

import reactor.core.publisher.Mono;

import org.springframework.core.ResolvableType;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;

/**
 * The default {@link RateLimitRejectionHandler}: an RFC 9457
 * {@code application/problem+json} body, encoded by the application's own JSON codec.
 */
public final class RateLimitProblemWriter implements RateLimitRejectionHandler {

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
	 * @param type the problem type of every rejection over a limit, an absolute URI (RFC
	 * 9457 section 3.1.1)
	 */
	@SuppressWarnings("unchecked")
	public RateLimitProblemWriter(List<HttpMessageWriter<?>> writers, URI type) {
		this.writer = (HttpMessageWriter<ProblemDetail>) writers.stream()
			.filter((candidate) -> candidate.canWrite(PROBLEM_DETAIL, MediaType.APPLICATION_PROBLEM_JSON))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No HTTP message writer can write "
					+ "application/problem+json; the RateLimit filter needs a JSON codec such as Jackson"));
		this.type = type;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A request over a limit, blocked by a penalty box after a breach, or refused by a
	 * store's failure mode, gets the configured problem type, its retry-after and the
	 * violated limits (none while blocked: no limit was consulted). A request without a key,
	 * with an invalid cost, or that a limit would hold while this node holds as many as
	 * it may gets no problem type of its own: a type must be a URI its publisher controls
	 * (RFC 9457 section 4), and the status says enough, so "about:blank", whose title is
	 * the status phrase (section 4.2.1), as {@link ProblemDetail} fills it in. The last
	 * is this node's 503, a temporary overload (RFC 9110 section 15.6.4), not the
	 * client's quota: it never gets the quota-exceeded type, and its wait is the
	 * {@code Retry-After} already written. A {@code HEAD} request gets the status and
	 * headers without a body (RFC 9110 section 9.3.2).
	 */
	@Override
	public Mono<Void> reject(ServerWebExchange exchange, RateLimitRejection rejection) {
		ServerHttpResponse response = exchange.getResponse();
		response.setStatusCode(rejection.status());
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(rejection.status(), rejection.detail());
		problem.setInstance(URI.create(exchange.getRequest().getURI().getRawPath()));
		if (rejection.reason() == RateLimitRejection.Reason.LIMIT_EXCEEDED || rejection.storeFailed()
				|| rejection.blocked()) {
			problem.setType(this.type);
			problem.setTitle(TITLE);
			problem.setProperty(RETRY_AFTER_PROPERTY, rejection.retryAfterSeconds());
			problem.setProperty(VIOLATED_POLICIES_PROPERTY, rejection.violatedLimits());
		}
		return this.writer.write(Mono.just(problem), PROBLEM_DETAIL, MediaType.APPLICATION_PROBLEM_JSON, response,
				Map.of());
	}

}
