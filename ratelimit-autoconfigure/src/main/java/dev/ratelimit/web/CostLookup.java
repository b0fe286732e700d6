package dev.ratelimit.web;

import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;

/**
 * How a route finds what a request costs under its policy, chosen once per route: the
 * policy's {@code cost} or {@code cost-header}, read from the request at once, or the
 * application's {@link CostResolver} bean, awaited. The judge checks the cost against
 * the request's tier afterwards.
 */
sealed interface CostLookup permits CostLookup.InRequest, CostLookup.Awaited {

	/**
	 * Stands for a cost header that is not a whole number, never a cost.
	 */
	long NOT_A_NUMBER = -1;

	/**
	 * A cost read from the request itself, so that the judge needs no {@code Mono}.
	 */
	@FunctionalInterface
	non-sealed interface InRequest extends CostLookup {

		/**
		 * @return the cost, or {@link #NOT_A_NUMBER}
		 */
		long read(ServerWebExchange exchange);

	}

	/**
	 * A cost that has to be waited for: a {@link CostResolver} bean's answer.
	 */
	@FunctionalInterface
	non-sealed interface Awaited extends CostLookup {

		Mono<Long> resolve(ServerWebExchange exchange);

	}

	static CostLookup fixed(long cost) {
		InRequest fixed = (exchange) -> cost;
		return fixed;
	}

	/**
	 * The value of a header, trusted as an upstream service sets it; {@code cost} when
	 * the request has none.
	 */
	static CostLookup header(String headerName, long cost) {
		InRequest fromHeader = (exchange) -> {
			String value = exchange.getRequest().getHeaders().getFirst(headerName);
			return (value != null) ? parse(value) : cost;
		};
		return fromHeader;
	}

	/**
	 * A {@link CostResolver} bean's answer; {@code cost} when it answers nothing.
	 * @throws IllegalStateException (signalled) when the bean answers less than 1
	 */
	static CostLookup of(CostResolver resolver, String policyId, long cost) {
		Awaited fromBean = (exchange) -> Mono.defer(() -> resolver.resolve(exchange, policyId))
			.defaultIfEmpty(cost)
			.handle((resolved, sink) -> {
				if (resolved < 1) {
					sink.error(new IllegalStateException("CostResolver " + resolver + " answered " + resolved
							+ " for policy '" + policyId + "'; a cost must be at least 1"));
				}
				else {
					sink.next(resolved);
				}
			});
		return fromBean;
	}

	/**
	 * A header value as a cost: ASCII digits only, no sign, no spaces inside; too many
	 * digits saturate, to be refused as above every limit.
	 */
	static long parse(String value) {
		if (value.isEmpty()) {
			return NOT_A_NUMBER;
		}
		long cost = 0;
		for (int i = 0; i < value.length(); i++) {
			char digit = value.charAt(i);
			if (digit < '0' || digit > '9') {
				return NOT_A_NUMBER;
			}
			cost = (cost > (Long.MAX_VALUE - 9) / 10) ? Long.MAX_VALUE : cost * 10 + (digit - '0');
		}
		return cost;
	}

}
