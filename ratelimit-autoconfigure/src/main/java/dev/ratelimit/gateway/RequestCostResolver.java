package dev.ratelimit.gateway;

import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;

/**
 * Says what a request costs under one policy, as chosen once per route: the policy's
 * {@code cost}, its {@code cost-header} or a {@link CostResolver} bean. The cost is
 * checked against the request's tier afterwards.
 */
@FunctionalInterface
interface RequestCostResolver {

	/**
	 * Stands for a cost header that is not a whole number, never a cost.
	 */
	long NOT_A_NUMBER = -1;

	/**
	 * @return the cost, or {@link #NOT_A_NUMBER}
	 */
	Mono<Long> resolve(ServerWebExchange exchange);

	/**
	 * A resolver that reads the cost from the request itself, at once.
	 */
	@FunctionalInterface
	interface Immediate extends RequestCostResolver {

		/**
		 * @return the cost, or {@link #NOT_A_NUMBER}
		 */
		long resolveNow(ServerWebExchange exchange);

		@Override
		default Mono<Long> resolve(ServerWebExchange exchange) {
			return Mono.just(resolveNow(exchange));
		}

	}

	static RequestCostResolver fixed(long cost) {
		Immediate fixed = (exchange) -> cost;
		return fixed;
	}

	/**
	 * The value of a header, trusted as an upstream service sets it; {@code cost} when
	 * the request has none.
	 */
	static RequestCostResolver header(String headerName, long cost) {
		Immediate fromHeader = (exchange) -> {
			String value = exchange.getRequest().getHeaders().getFirst(headerName);
			return (value != null) ? parse(value) : cost;
		};
		return fromHeader;
	}

	/**
	 * A {@link CostResolver} bean's answer; {@code cost} when it answers nothing.
	 * @throws IllegalStateException (signalled) when the bean answers less than 1
	 */
	static RequestCostResolver of(CostResolver resolver, String policyId, long cost) {
		return (exchange) -> Mono.defer(() -> resolver.resolve(exchange, policyId))
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
