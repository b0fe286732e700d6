package dev.ratelimit.web;

import java.math.BigDecimal;
import java.util.Map;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.JsonPointer;
import dev.ratelimit.policy.ResponseCostSource;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.support.ThrottledLog;
import dev.ratelimit.web.PolicyJudge.TierOnRoute;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;

/**
 * What one admitted request's exchange settles of its decision, exactly once on every
 * path: completed, failed, timed out or cancelled by its client.
 * <ul>
 * <li>Before the response is committed, on the exchange's own response (so that one
 * written by an error handler once the chain failed, a gateway's 504, counts too): a
 * counted status takes the cost, a cost in a header (or a resolver's answer from the
 * headers) replaces the estimate, the header hidden if asked; the store is awaited, and
 * the rate limit headers are written again from what it answers, so that the response
 * itself tells the charge.</li>
 * <li>A cost in the body is read as the body streams by ({@link CostReadingResponse},
 * never buffered, never altered) and replaces the estimate once the body has ended:
 * its headers are sent by then, and tell the quota as it was before.</li>
 * <li>When the exchange ends, the slots of its in-flight limits are given back, with
 * the body's cost in the same call.</li>
 * </ul>
 * On a route of several policies each admitted policy whose tier has a plan settles its
 * own share, its settlement wrapped around the next policy's, and the headers written
 * again before the commit describe every policy.
 * <p>
 * A response that never comes (the client went away first) charges no counted status,
 * and the estimate stands for its cost. A missing, malformed or negative cost never
 * breaks the response: the estimate stands, the listeners are told why, and a
 * throttled log names the policy and route.
 */
final class ExchangeSettlement {

	private static final ThrottledLog unreadableCosts = new ThrottledLog(
			LogFactory.getLog(ExchangeSettlement.class));

	private final RouteSettler settler;

	private final PolicyJudgement judgement;

	private final TierOnRoute tier;

	private final SettlementPlan plan;

	/**
	 * What the request was judged to cost: the estimate a reported cost replaces, the
	 * cost a counted status takes.
	 */
	private final long cost;

	private final SettledHeaders headersAfter;

	private final long admittedAt;

	private final ServerHttpResponse response;

	private long bodyUnits;

	private boolean ended;

	/**
	 * @param judgement the admitted request's judgement under one policy, whose tier has
	 * a plan
	 * @param headersAfter writes the rate limit headers again once a settlement before
	 * the commit has the store describe the bucket anew
	 * @param heldNanos how long the request was held before it went on, {@code 0} when
	 * it went at once
	 */
	ExchangeSettlement(PolicyJudgement judgement, SettledHeaders headersAfter, long heldNanos,
			ServerHttpResponse response) {
		this.settler = judgement.policy().settler();
		this.judgement = judgement;
		this.tier = judgement.tier();
		this.plan = judgement.tier().plan();
		this.cost = judgement.cost();
		this.headersAfter = headersAfter;
		this.admittedAt = judgement.policy().clock().nanoTime() - heldNanos;
		this.response = response;
	}

	/**
	 * Forward the exchange, settled as its plan says.
	 */
	<C> Mono<Void> forward(ServerWebExchange exchange, C chain, RequestJudge.Next<C> next) {
		if (this.plan.settlesOnCommit()) {
			this.response.beforeCommit(this::committing);
		}
		ServerWebExchange forwarded = this.plan.readsBody()
				? exchange.mutate().response(new CostReadingResponse(this.response, this)).build() : exchange;
		return Mono.defer(() -> next.proceed(chain, forwarded)).doFinally(this::ended);
	}

	/**
	 * The response is about to be committed: settle what its status and headers say,
	 * awaited, and tell it in its headers.
	 */
	private Mono<Void> committing() {
		HttpHeaders headers = this.response.getHeaders();
		HttpStatusCode status = status();
		long units = 0;
		if (this.plan.counts(status.value())) {
			units = actualCost(status, headers) - taken();
		}
		if (this.plan.hideCostHeader() && this.plan.costSource() instanceof ResponseCostSource.Header header) {
			headers.remove(header.name());
		}
		if (units == 0) {
			return Mono.empty();
		}
		return this.settler.settle(this.judgement.bucket(), this.tier, settlement(units, false))
			.doOnNext((verdict) -> this.headersAfter.write(headers, this.judgement, verdict))
			.then();
	}

	/**
	 * The cost as the status and headers tell it: the header's number, the resolver's
	 * answer, else the estimate.
	 */
	private long actualCost(HttpStatusCode status, HttpHeaders headers) {
		ResponseCostSource source = this.plan.costSource();
		if (source instanceof ResponseCostSource.Header header) {
			String value = headers.getFirst(header.name());
			long reported = (value != null) ? wholeNumber(value) : -1;
			if (reported < 0) {
				unreadable((value == null) ? "header-missing" : "header-malformed");
				return this.cost;
			}
			return reported;
		}
		if (source instanceof ResponseCostSource.Resolver) {
			return resolved(status, headers, Map.of());
		}
		return this.cost;
	}

	/**
	 * A reader of the body, for a response whose status counts; {@code null} when it
	 * does not, and the body is not read.
	 */
	@Nullable BodyNumbers bodyReader() {
		if (!this.plan.counts(status().value())) {
			return null;
		}
		HttpHeaders headers = this.response.getHeaders();
		return BodyNumbers.of(headers.getFirst(HttpHeaders.CONTENT_TYPE), headers.getFirst(HttpHeaders.CONTENT_ENCODING),
				this.plan.pointers());
	}

	/**
	 * The body has been read to its end: its cost replaces the estimate, with the
	 * exchange's end when it has not come yet, else on its own.
	 */
	void bodyRead(BodyNumbers numbers) {
		long units = bodyCost(numbers) - taken();
		if (units == 0) {
			return;
		}
		synchronized (this) {
			if (!this.ended) {
				this.bodyUnits = units;
				return;
			}
		}
		this.settler.settleLater(this.judgement.bucket(), this.tier, settlement(units, false));
	}

	private long bodyCost(BodyNumbers numbers) {
		if (this.plan.resolver() != null) {
			return resolved(status(), this.response.getHeaders(), numbers.numbers());
		}
		JsonPointer pointer = this.plan.pointers().get(0);
		Number number = numbers.numbers().get(pointer.text());
		if (number == null) {
			BodyNumbers.Unreadable why = numbers.unreadable();
			unreadable((why != null) ? tagValue(why) : "not-found");
			return this.cost;
		}
		long units = units(number);
		if (units < 0) {
			unreadable("negative");
			return this.cost;
		}
		return units;
	}

	/**
	 * The exchange has ended, however: its slots come back, once, with the body's cost
	 * if it is known.
	 */
	private void ended(SignalType signal) {
		long units;
		synchronized (this) {
			if (this.ended) {
				return;
			}
			this.ended = true;
			units = this.bodyUnits;
		}
		Settlement settlement = settlement(units, this.plan.inFlight());
		if (!settlement.empty()) {
			this.settler.settleLater(this.judgement.bucket(), this.tier, settlement);
		}
	}

	private long resolved(HttpStatusCode status, HttpHeaders headers, Map<String, Number> numbers) {
		ResponseCostResolver resolver = this.plan.resolver();
		Long resolved;
		try {
			resolved = resolver.cost(this.plan.policyId(), status, headers, numbers);
		}
		catch (RuntimeException ex) {
			unreadable("resolver-failed", ex);
			return this.cost;
		}
		if (resolved == null) {
			unreadable("resolver-none");
			return this.cost;
		}
		if (resolved < 0) {
			unreadable("resolver-negative");
			return this.cost;
		}
		return resolved;
	}

	/**
	 * The units the decision took: the estimate, unless the policy counts responses and
	 * only checked.
	 */
	private long taken() {
		return this.plan.takesOnAdmission() ? this.cost : 0;
	}

	private Settlement settlement(long units, boolean ended) {
		return new Settlement(units, Math.max(0, this.judgement.policy().clock().nanoTime() - this.admittedAt), ended,
				this.judgement.verdict().fallback());
	}

	private HttpStatusCode status() {
		HttpStatusCode status = this.response.getStatusCode();
		return (status != null) ? status : HttpStatus.OK;
	}

	private void unreadable(String reason) {
		unreadable(reason, null);
	}

	private void unreadable(String reason, @Nullable Throwable error) {
		this.tier.listeners().notifyUnreadableCost(reason);
		unreadableCosts.warn(() -> "The response cost of a request of policy '" + this.plan.policyId()
				+ "' on route '" + this.settler.routeId() + "' could not be read (" + reason
				+ "); its estimate of " + this.cost + " stands", error);
	}

	/**
	 * A header's whole number of units, 0 or more; {@code -1} when it is none (RFC 9110
	 * section 5.5: surrounding whitespace is not part of the value).
	 */
	static long wholeNumber(String value) {
		String digits = value.strip();
		if (digits.isEmpty() || digits.length() > 18) {
			return -1;
		}
		for (int i = 0; i < digits.length(); i++) {
			if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
				return -1;
			}
		}
		return Long.parseLong(digits);
	}

	/**
	 * A body's number as whole units, a fraction rounded up; {@code -1} when it is
	 * negative or not finite.
	 */
	static long units(Number number) {
		if (number instanceof Long || number instanceof Integer || number instanceof Short
				|| number instanceof Byte) {
			return (number.longValue() >= 0) ? number.longValue() : -1;
		}
		if (number instanceof BigDecimal decimal) {
			return (decimal.signum() >= 0) ? units(decimal.doubleValue()) : -1;
		}
		return units(number.doubleValue());
	}

	private static long units(double value) {
		if (!(value >= 0) || Double.isInfinite(value)) {
			return -1;
		}
		return (long) Math.ceil(value);
	}

	static String tagValue(BodyNumbers.Unreadable reason) {
		return reason.name().toLowerCase().replace('_', '-');
	}

	/**
	 * Writes a request's rate limit headers again once a settlement before the commit
	 * has the store describe one of its policies' buckets anew, the other policies'
	 * buckets as they were described.
	 */
	@FunctionalInterface
	interface SettledHeaders {

		/**
		 * @param settled the judgement whose bucket was settled
		 * @param verdict the bucket's limits after settling
		 */
		void write(HttpHeaders headers, PolicyJudgement settled, Verdict verdict);

	}

}
