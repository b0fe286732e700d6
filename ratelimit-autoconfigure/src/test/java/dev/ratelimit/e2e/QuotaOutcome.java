package dev.ratelimit.e2e;

import org.springframework.test.web.reactive.server.EntityExchangeResult;

/**
 * A response's status, limit and remaining quota in one string, {@code "200 2 1"}, so
 * that a run of requests reads as one list.
 */
final class QuotaOutcome {

	private QuotaOutcome() {
	}

	static String of(EntityExchangeResult<?> result) {
		return result.getStatus().value() + " " + result.getResponseHeaders().getFirst("RateLimit-Limit") + " "
				+ result.getResponseHeaders().getFirst("RateLimit-Remaining");
	}

}
