package dev.ratelimit.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.MonotonicClock;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.ThrottledLog;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.server.ServerWebExchange;

import static org.springframework.cloud.gateway.support.GatewayToStringStyler.filterToStringCreator;

/**
 * The RateLimit filter of one route: everything that does not depend on the request
 * was resolved when the route was built.
 */
final class RateLimitGatewayFilter implements GatewayFilter {

	private static final ThrottledLog storeFailures = new ThrottledLog(LogFactory.getLog(RateLimitGatewayFilter.class));

	private static final ThrottledLog keyResolverFailures = new ThrottledLog(
			LogFactory.getLog(RateLimitGatewayFilter.class));

	private static final ThrottledLog listenerFailures = new ThrottledLog(
			LogFactory.getLog(RateLimitGatewayFilter.class));

	/**
	 * Stands for a request without a key whose policy rejects it; recognised by
	 * identity, never a store's.
	 */
	private static final Verdict NO_KEY = Verdict.withoutLimits(false, 0);

	private final String policyId;

	private final String routeId;

	private final boolean shadow;

	private final long cost;

	private final BucketDecider store;

	private final String apiKeyHeader;

	private final Map<String, String> tiersByApiKey;

	private final Map<String, TierPlan> plansByTier;

	private final TierPlan defaultPlan;

	private final ClientKeyResolver keyResolver;

	private final RateLimitListener[] listeners;

	private final RateLimitProblemWriter problemWriter;

	private final MissingKeyRejection missingKey;

	RateLimitGatewayFilter(RouteSettings route, BucketDecider store, Map<String, String> tiersByApiKey,
			Map<String, TierPlan> plansByTier, TierPlan defaultPlan, ClientKeyResolver keyResolver,
			RateLimitListener[] listeners, RateLimitProblemWriter problemWriter, MissingKeyRejection missingKey) {
		this.policyId = route.policyId();
		this.routeId = route.routeId();
		this.shadow = route.shadow();
		this.cost = route.cost();
		this.apiKeyHeader = route.apiKeyHeader();
		this.store = store;
		this.tiersByApiKey = tiersByApiKey;
		this.plansByTier = plansByTier;
		this.defaultPlan = defaultPlan;
		this.keyResolver = keyResolver;
		this.listeners = listeners;
		this.problemWriter = problemWriter;
		this.missingKey = missingKey;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * When the key is in the request and the store decides in memory, the request is
	 * judged right here, without a reactive operator; otherwise the store's answer is
	 * awaited.
	 */
	@Override
	public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
		String apiKey = exchange.getRequest().getHeaders().getFirst(this.apiKeyHeader);
		String tierName = (apiKey != null) ? this.tiersByApiKey.get(apiKey) : null;
		String knownApiKey = (tierName != null) ? apiKey : null;
		TierPlan plan = (tierName != null) ? this.plansByTier.getOrDefault(tierName, this.defaultPlan)
				: this.defaultPlan;
		long start = MonotonicClock.SYSTEM.nanoTime();
		if (!(this.keyResolver instanceof ClientKeyResolver.Immediate immediate)) {
			return judge(exchange, chain, plan, this.keyResolver.resolve(exchange, knownApiKey), start);
		}
		String key = immediate.resolveNow(exchange, knownApiKey);
		if (key == null) {
			return rejectMissingKey(exchange, plan);
		}
		Verdict verdict;
		try {
			verdict = this.store.acquireNow(new BucketId(this.policyId, plan.tier().name(), key), plan.tier(),
					this.cost);
		}
		catch (RuntimeException ex) {
			verdict = storeFailed(ex);
		}
		if (verdict == null) {
			return judge(exchange, chain, plan, Mono.just(key), start);
		}
		return enforce(exchange, chain, plan, verdict, MonotonicClock.SYSTEM.nanoTime() - start);
	}

	/**
	 * Judge the request once its key, then the store's verdict, arrive.
	 */
	private Mono<Void> judge(ServerWebExchange exchange, GatewayFilterChain chain, TierPlan plan, Mono<String> key,
			long start) {
		return key
			.flatMap((resolved) -> Mono
				.defer(() -> this.store.acquire(new BucketId(this.policyId, plan.tier().name(), resolved),
						plan.tier(), this.cost))
				.switchIfEmpty(Mono.fromSupplier(() -> storeFailed(null)))
				.onErrorResume((error) -> Mono.just(storeFailed(error))))
			.defaultIfEmpty(NO_KEY)
			.onErrorResume((error) -> Mono.just(keyResolverFailed(error)))
			.flatMap((verdict) -> (verdict != NO_KEY)
					? enforce(exchange, chain, plan, verdict, MonotonicClock.SYSTEM.nanoTime() - start)
					: rejectMissingKey(exchange, plan));
	}

	private Mono<Void> rejectMissingKey(ServerWebExchange exchange, TierPlan plan) {
		notifyListeners(plan.tier(), Outcome.MISSING_KEY, 0);
		return this.problemWriter.rejectMissingKey(exchange, this.missingKey.status(), this.missingKey.detail());
	}

	/**
	 * A store that failed or answered nothing lets the request through, reporting no
	 * quota.
	 */
	private Verdict storeFailed(@Nullable Throwable error) {
		storeFailures.warn(() -> "Rate limit store '" + this.store.name() + "' failed for policy '" + this.policyId
				+ "' on route '" + this.routeId + "'; letting the request through", error);
		return Verdict.FAIL_OPEN;
	}

	/**
	 * A key resolver that fails lets the request through, as a failing store does: the
	 * limiter must not turn its own failure into the client's error.
	 */
	private Verdict keyResolverFailed(Throwable error) {
		keyResolverFailures.warn(() -> "Rate limit key resolver of policy '" + this.policyId + "' failed on route '"
				+ this.routeId + "'; letting the request through without a rate limit decision", error);
		return Verdict.FAIL_OPEN;
	}

	private Mono<Void> enforce(ServerWebExchange exchange, GatewayFilterChain chain, TierPlan plan, Verdict verdict,
			long decisionNanos) {
		boolean reject = !verdict.allowed() && !this.shadow;
		notifyListeners(plan.tier(), outcome(verdict), decisionNanos);
		if (verdict.limitCount() > 0) {
			plan.headers().write(exchange.getResponse().getHeaders(), verdict);
		}
		if (reject) {
			return this.problemWriter.reject(exchange, plan.detail(verdict), verdict.retryAfterSeconds(),
					plan.violatedPolicies(verdict));
		}
		return chain.filter(exchange);
	}

	private Outcome outcome(Verdict verdict) {
		if (verdict.fallback()) {
			return Outcome.ERROR;
		}
		if (verdict.allowed()) {
			return Outcome.ALLOWED;
		}
		return this.shadow ? Outcome.SHADOW_REJECTED : Outcome.REJECTED;
	}

	private void notifyListeners(Tier tier, Outcome outcome, long decisionNanos) {
		for (RateLimitListener listener : this.listeners) {
			try {
				listener.onDecision(this.policyId, tier.name(), this.routeId, this.store.name(), outcome,
						decisionNanos);
			}
			catch (RuntimeException ex) {
				listenerFailures.warn(() -> "Rate limit listener " + listener + " failed", ex);
			}
		}
	}

	@Override
	public String toString() {
		return filterToStringCreator(this).append("policy", this.policyId)
			.append("store", this.store.name())
			.append("shadow", this.shadow)
			.toString();
	}

	/**
	 * What a route's filter knows of its policy.
	 */
	record RouteSettings(String policyId, String routeId, boolean shadow, long cost, String apiKeyHeader) {
	}

	/**
	 * How a route answers a request without a key, when its policy rejects those.
	 *
	 * @param status the response status
	 * @param detail the problem's detail: which key the request lacks
	 */
	record MissingKeyRejection(HttpStatusCode status, String detail) {
	}

	/**
	 * A tier as a route serves it: its limits, their descriptions and its header
	 * writer.
	 */
	record TierPlan(Tier tier, LimitDescription[] limits, RateLimitHeaders headers) {

		/**
		 * The detail of a rejection without any limit's decision: a store's failure mode
		 * refused the request.
		 */
		static final String UNCHECKED_DETAIL = "The rate limit could not be checked, so the request was refused; "
				+ "retry after the time given.";

		/**
		 * The sentence of a 429 body: the reported limit's, which is one that rejected.
		 */
		String detail(Verdict verdict) {
			return (verdict.limitCount() > 0) ? this.limits[verdict.reportedIndex()].detail() : UNCHECKED_DETAIL;
		}

		/**
		 * The names of the limits that rejected, as in {@code RateLimit-Policy}; none
		 * when a store's failure mode refused the request without consulting any.
		 */
		List<String> violatedPolicies(Verdict verdict) {
			List<String> names = new ArrayList<>(1);
			for (int i = 0; i < verdict.limitCount(); i++) {
				if (!verdict.decision(i).allowed()) {
					names.add(this.limits[i].name());
				}
			}
			return names;
		}

	}

}
