package dev.ratelimit.gateway;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.MonotonicClock;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.gateway.RateLimitRejection.Reason;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.ThrottledLog;
import org.jspecify.annotations.Nullable;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.server.ServerWebExchange;

/**
 * One policy enforced on the requests of one route, whether a gateway route or a web
 * route: the request's tier, cost and key, the store's verdict, then the rate limit
 * headers and the rest of the chain, or a rejection. Everything that does not depend on
 * the request was resolved when the route was built.
 * <p>
 * When the tier, cost and key are in the request and the store decides in memory, a
 * request is judged in line, without a reactive operator; otherwise each answer is
 * awaited.
 * <p>
 * Longer than most classes here on purpose: the request path reads top to bottom in
 * one place (tier, cost, key, store, verdict, headers or rejection), both its in-line
 * and its reactive form, rather than across helpers that would each see a fragment.
 */
final class RateLimitEnforcer {

	private static final ThrottledLog storeFailures = new ThrottledLog(LogFactory.getLog(RateLimitEnforcer.class));

	private static final ThrottledLog resolverFailures = new ThrottledLog(
			LogFactory.getLog(RateLimitEnforcer.class));

	private static final ThrottledLog keyResolverFailures = new ThrottledLog(
			LogFactory.getLog(RateLimitEnforcer.class));

	/**
	 * Stands for a request without a key whose policy rejects it; recognised by
	 * identity, never a store's.
	 */
	private static final Verdict NO_KEY = Verdict.withoutLimits(false, 0);

	private final RouteSettings route;

	private final BucketDecider store;

	/**
	 * The store's name, read once: listeners are told it with every decision.
	 */
	private final String storeName;

	private final Map<String, String> tiersByApiKey;

	private final Map<String, RouteTier> tiersByName;

	private final RouteTier defaultTier;

	private final RequestTierResolver tiers;

	private final RequestCostResolver costs;

	private final ClientKeyResolver keys;

	/**
	 * The three resolvers when all of them answer at once, else {@code null}.
	 */
	private final RequestTierResolver.Immediate immediateTiers;

	private final RequestCostResolver.Immediate immediateCosts;

	private final ClientKeyResolver.Immediate immediateKeys;

	private final RateLimitRejectionHandler rejectionHandler;

	RateLimitEnforcer(RouteSettings route, BucketDecider store, Map<String, String> tiersByApiKey,
			Map<String, TierPlan> plansByTier, TierPlan defaultPlan, Resolvers resolvers,
			DecisionListeners listeners, RateLimitRejectionHandler rejectionHandler) {
		this.route = route;
		this.store = store;
		this.storeName = store.name();
		this.tiersByApiKey = tiersByApiKey;
		this.tiersByName = new HashMap<>();
		plansByTier.forEach((name, plan) -> this.tiersByName.put(name, routeTier(plan, listeners)));
		this.defaultTier = this.tiersByName.get(defaultPlan.tier().name());
		this.tiers = resolvers.tiers();
		this.costs = resolvers.costs();
		this.keys = resolvers.keys();
		boolean immediate = this.tiers instanceof RequestTierResolver.Immediate
				&& this.costs instanceof RequestCostResolver.Immediate
				&& this.keys instanceof ClientKeyResolver.Immediate;
		this.immediateTiers = immediate ? (RequestTierResolver.Immediate) this.tiers : null;
		this.immediateCosts = immediate ? (RequestCostResolver.Immediate) this.costs : null;
		this.immediateKeys = immediate ? (ClientKeyResolver.Immediate) this.keys : null;
		this.rejectionHandler = rejectionHandler;
	}

	private RouteTier routeTier(TierPlan plan, DecisionListeners listeners) {
		return new RouteTier(plan, listeners.forRouteTier(this.route.policyId(), plan.tier().name(),
				this.route.routeId(), this.storeName));
	}

	/**
	 * Enforce the policy on a request.
	 * @param exchange the request
	 * @param chain the rest of the request's filter chain
	 * @param next how the chain goes on with the request, when it is let through
	 * @return completes when the request has been answered or passed on
	 */
	<C> Mono<Void> enforce(ServerWebExchange exchange, C chain, Next<C> next) {
		// Without configured API keys no header can name one: not read at all.
		String apiKey = this.tiersByApiKey.isEmpty() ? null
				: exchange.getRequest().getHeaders().getFirst(this.route.apiKeyHeader());
		String apiKeyTier = (apiKey != null) ? this.tiersByApiKey.get(apiKey) : null;
		String knownApiKey = (apiKeyTier != null) ? apiKey : null;
		long start = MonotonicClock.SYSTEM.nanoTime();
		if (this.immediateKeys == null) {
			return this.tiers.resolve(exchange, apiKeyTier)
				.onErrorResume(this::tierResolverFailed)
				.map(this::tier)
				.defaultIfEmpty(this.defaultTier)
				.flatMap((tier) -> this.costs.resolve(exchange)
					.flatMap((cost) -> tier.plan().admits(cost)
							? judge(exchange, chain, next, tier, cost, this.keys.resolve(exchange, knownApiKey),
									start)
							: rejectInvalidCost(exchange, tier, cost)));
		}
		RouteTier tier = tier(this.immediateTiers.resolveNow(exchange, apiKeyTier));
		long cost = this.immediateCosts.resolveNow(exchange);
		if (!tier.plan().admits(cost)) {
			return rejectInvalidCost(exchange, tier, cost);
		}
		String key = this.immediateKeys.resolveNow(exchange, knownApiKey);
		if (key == null) {
			return rejectMissingKey(exchange, tier);
		}
		Verdict verdict;
		try {
			verdict = this.store.acquireNow(new BucketId(this.route.policyId(), tier.name(), key), tier.plan().tier(),
					cost);
		}
		catch (RuntimeException ex) {
			verdict = storeFailed(ex);
		}
		if (verdict == null) {
			return judge(exchange, chain, next, tier, cost, Mono.just(key), start);
		}
		return decided(exchange, chain, next, tier, verdict, MonotonicClock.SYSTEM.nanoTime() - start);
	}

	/**
	 * The tier of a tier name; the default tier for no name or one this policy does not
	 * list.
	 */
	private RouteTier tier(String tierName) {
		return (tierName != null) ? this.tiersByName.getOrDefault(tierName, this.defaultTier) : this.defaultTier;
	}

	/**
	 * A tier resolver that fails must not take requests down with it: they get the
	 * default tier.
	 */
	private Mono<String> tierResolverFailed(Throwable error) {
		resolverFailures.warn(() -> "Resolving the tier failed for policy '" + this.route.policyId() + "' on route '"
				+ this.route.routeId() + "'; judging the request under the default tier", error);
		return Mono.empty();
	}

	/**
	 * Judge the request once its key, then the store's verdict, arrive.
	 */
	private <C> Mono<Void> judge(ServerWebExchange exchange, C chain, Next<C> next, RouteTier tier, long cost,
			Mono<String> key, long start) {
		return key
			.flatMap((resolved) -> Mono
				.defer(() -> this.store.acquire(new BucketId(this.route.policyId(), tier.name(), resolved),
						tier.plan().tier(), cost))
				.switchIfEmpty(Mono.fromSupplier(() -> storeFailed(null)))
				.onErrorResume((error) -> Mono.just(storeFailed(error))))
			.defaultIfEmpty(NO_KEY)
			.onErrorResume((error) -> Mono.just(keyResolverFailed(error)))
			.flatMap((verdict) -> (verdict != NO_KEY)
					? decided(exchange, chain, next, tier, verdict, MonotonicClock.SYSTEM.nanoTime() - start)
					: rejectMissingKey(exchange, tier));
	}

	/**
	 * A store that failed or answered nothing lets the request through, reporting no
	 * quota.
	 */
	private Verdict storeFailed(@Nullable Throwable error) {
		storeFailures.warn(() -> "Rate limit store '" + this.storeName + "' failed for policy '"
				+ this.route.policyId() + "' on route '" + this.route.routeId() + "'; letting the request through",
				error);
		return Verdict.FAIL_OPEN;
	}

	/**
	 * A key resolver that fails lets the request through, as a failing store does: the
	 * limiter must not turn its own failure into the client's error.
	 */
	private Verdict keyResolverFailed(Throwable error) {
		keyResolverFailures.warn(() -> "Rate limit key resolver of policy '" + this.route.policyId()
				+ "' failed on route '" + this.route.routeId()
				+ "'; letting the request through without a rate limit decision", error);
		return Verdict.FAIL_OPEN;
	}

	/**
	 * Write what the verdict says: the rate limit headers, then either the rest of the
	 * chain or, with {@code Retry-After}, the rejection.
	 */
	private <C> Mono<Void> decided(ServerWebExchange exchange, C chain, Next<C> next, RouteTier tier,
			Verdict verdict, long decisionNanos) {
		boolean reject = !verdict.allowed() && !this.route.shadow();
		tier.listeners().notify(Outcome.of(verdict, this.route.shadow()), decisionNanos);
		TierPlan plan = tier.plan();
		HttpHeaders headers = exchange.getResponse().getHeaders();
		if (verdict.limitCount() > 0) {
			plan.headers().write(headers, verdict);
		}
		if (!reject) {
			return next.proceed(chain, exchange);
		}
		long retryAfter = verdict.retryAfterSeconds();
		// Delay-seconds (RFC 9110 section 10.2.3), like the rate limit headers' resets, so
		// that both reference the same instant.
		headers.set(HttpHeaders.RETRY_AFTER, HeaderNumbers.of(retryAfter));
		return reject(exchange, verdict.fallback() ? Reason.STORE_FAILED : Reason.LIMIT_EXCEEDED,
				HttpStatus.TOO_MANY_REQUESTS, plan.detail(verdict), retryAfter, plan.violatedPolicies(verdict), tier);
	}

	private Mono<Void> rejectMissingKey(ServerWebExchange exchange, RouteTier tier) {
		tier.listeners().notify(Outcome.MISSING_KEY, 0);
		return reject(exchange, Reason.MISSING_KEY, this.route.missingKeyStatus(), this.route.missingKeyDetail(), 0,
				List.of(), tier);
	}

	private Mono<Void> rejectInvalidCost(ServerWebExchange exchange, RouteTier tier, long cost) {
		tier.listeners().notify(Outcome.INVALID_COST, 0);
		return reject(exchange, Reason.INVALID_COST, HttpStatus.BAD_REQUEST,
				invalidCostDetail(exchange, tier.plan(), cost), 0, List.of(), tier);
	}

	private String invalidCostDetail(ServerWebExchange exchange, TierPlan plan, long cost) {
		String costHeader = this.route.costHeader();
		if (costHeader != null) {
			return "The " + costHeader + " header must be a whole number from 1 to " + plan.maxCost()
					+ ", the most one request may cost under this route's rate limit; it was '"
					+ exchange.getRequest().getHeaders().getFirst(costHeader) + "'.";
		}
		return "This request costs " + cost + " units, more than the " + plan.maxCost()
				+ " this route's rate limit can ever admit at once.";
	}

	private Mono<Void> reject(ServerWebExchange exchange, Reason reason, HttpStatusCode status, String detail,
			long retryAfterSeconds, List<String> violatedLimits, RouteTier tier) {
		RateLimitRejection rejection = new RateLimitRejection(reason, status, detail, retryAfterSeconds,
				violatedLimits, this.route.policyId(), tier.name(), this.route.routeId());
		return this.rejectionHandler.reject(exchange, rejection);
	}

	String policyId() {
		return this.route.policyId();
	}

	String storeName() {
		return this.storeName;
	}

	boolean shadow() {
		return this.route.shadow();
	}

	/**
	 * How a filter chain goes on with an exchange: a gateway's or a web filter chain.
	 * Given as a method reference that captures nothing, so that passing it allocates
	 * nothing per request.
	 */
	@FunctionalInterface
	interface Next<C> {

		Mono<Void> proceed(C chain, ServerWebExchange exchange);

	}

	/**
	 * What a route's enforcer knows of its policy and route.
	 *
	 * @param policyId the policy's id
	 * @param routeId the route's id
	 * @param shadow whether rejections are only counted and reported
	 * @param apiKeyHeader the header carrying the API key
	 * @param costHeader the policy's cost header, or {@code null}
	 * @param missingKeyStatus the status of a request without a key, when the policy
	 * rejects those
	 * @param missingKeyDetail the detail of that rejection: which key the request lacks
	 */
	record RouteSettings(String policyId, String routeId, boolean shadow, String apiKeyHeader, String costHeader,
			HttpStatusCode missingKeyStatus, String missingKeyDetail) {
	}

	/**
	 * How the route finds a request's tier, cost and key.
	 */
	record Resolvers(RequestTierResolver tiers, RequestCostResolver costs, ClientKeyResolver keys) {
	}

	/**
	 * A tier as this route serves it: its plan, and the listeners of its decisions here.
	 */
	private record RouteTier(TierPlan plan, DecisionListeners.Bound listeners) {

		String name() {
			return this.plan.tier().name();
		}

	}

}
