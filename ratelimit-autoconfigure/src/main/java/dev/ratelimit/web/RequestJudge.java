package dev.ratelimit.web;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.AfterResponse;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.support.ThrottledLog;
import dev.ratelimit.web.RateLimitRejection.Reason;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.server.ServerWebExchange;

/**
 * The request path: judges the requests of one route under one policy, for every entry
 * point (the gateway's {@code RateLimit} filter, a policy's {@code RateLimiter} bean,
 * the plain WebFlux filter). It reads top to bottom: whether the policy applies to the
 * request, the request's tier (and whether its client is exempt), cost and key, the
 * store's decision, then what is done with it: listeners told, rate limit headers
 * and {@code Retry-After} written, and the request forwarded, held then forwarded
 * (shaping), or rejected. A decision the exchange settles afterwards (a counted
 * response, a cost the response reports, a slot in flight) is settled by the one
 * {@link ExchangeSettlement} wrapped around {@link #forward}, through the same
 * {@link RouteSettler} that gives back what a held request that never went on took.
 * Under a policy's penalty box the store's decision is also its block's: refused at once
 * while blocked, a block started on a breach ({@link PenaltyVerdicts}).
 * <p>
 * Each step's answer is either known at once (read from the request, decided in this
 * node's memory) and the next step is called directly, or awaited, and the same next
 * step is called from the {@code Mono}: one flow, without a reactive operator when
 * nothing has to be waited for. Everything that does not depend on the request was
 * resolved when the route was built.
 */
public final class RequestJudge {

	private static final ThrottledLog storeFailures = new ThrottledLog(LogFactory.getLog(RequestJudge.class));

	private static final ThrottledLog lookupFailures = new ThrottledLog(LogFactory.getLog(RequestJudge.class));


	/**
	 * Stand for an awaited key that is missing or whose lookup failed; recognised by
	 * identity, never a request's key.
	 */
	private static final String NO_KEY = new String("no key");

	private static final String KEY_LOOKUP_FAILED = new String("key lookup failed");

	private final RouteSettings route;

	private final BucketDecider store;

	/**
	 * The store's name, read once: listeners are told it with every decision.
	 */
	private final String storeName;

	private final Map<String, String> tiersByApiKey;

	private final Map<String, TierOnRoute> tiersByName;

	private final TierOnRoute defaultTier;

	/**
	 * How the route reads a request; {@code null} for a judge that is only given keys, a
	 * {@code RateLimiter} bean's.
	 */
	private final @Nullable Lookups lookups;

	private final RateLimitRejectionHandler rejectionHandler;

	private final HeldRelease held;

	private final RouteSettler settler;

	/**
	 * Whether requests are checked rather than acquired: a policy that counts responses
	 * takes their cost once the status is known.
	 */
	private final boolean checks;

	/**
	 * What a refusal says when the policy's penalty box had a part in it.
	 */
	private final PenaltyVerdicts penalties;

	/**
	 * @param responseCostResolver the application's resolver of response costs, or
	 * {@code null}
	 * @param penalties what a refusal a penalty block had a part in says; {@code store}
	 * decides under the policy's penalty box ({@link PenaltyVerdicts#decider})
	 * @throws IllegalStateException when the judge is a {@code RateLimiter} bean's (no
	 * {@code lookups}) and the policy settles after the response or a tier limits
	 * requests in flight: the bean never sees the response
	 */
	RequestJudge(RouteSettings route, BucketDecider store, Map<String, String> tiersByApiKey,
			Map<String, JudgedTier> tiers, JudgedTier defaultTier, @Nullable Lookups lookups,
			DecisionListeners listeners, RateLimitRejectionHandler rejectionHandler, HeldRequests held,
			@Nullable ResponseCostResolver responseCostResolver, PenaltyVerdicts penalties) {
		this.route = route;
		this.store = store;
		this.storeName = store.name();
		this.tiersByApiKey = tiersByApiKey;
		this.tiersByName = new HashMap<>();
		tiers.forEach((name, tier) -> this.tiersByName.put(name,
				new TierOnRoute(tier, listeners.forRouteTier(route.policyId(), name, route.routeId(), this.storeName),
						SettlementPlan.of(route.policyId(), route.afterResponse(), tier.tier(), responseCostResolver))));
		this.defaultTier = this.tiersByName.get(defaultTier.tier().name());
		this.lookups = lookups;
		this.rejectionHandler = rejectionHandler;
		this.settler = new RouteSettler(store, route.policyId(), route.routeId());
		this.held = new HeldRelease(held, this.settler);
		this.checks = route.afterResponse().countResponses() != null;
		this.penalties = penalties;
		if (lookups == null && settlesAfterResponse()) {
			throw new IllegalStateException("Rate limit policy '" + route.policyId()
					+ "' settles its requests once their response is known (count-responses, cost-from-response or "
					+ "an algorithm: concurrency limit), which a RateLimiter bean never sees: Spring Cloud Gateway's "
					+ "RequestRateLimiter forwards the request itself; use the RateLimit filter on route '"
					+ route.routeId() + "' instead");
		}
	}

	/**
	 * Whether the policy settles a request after its response or a tier limits requests
	 * in flight: the exchange must be seen to its end, which a route's filter does, and a
	 * gateway's before the response is written ({@code NettyWriteResponseFilter}).
	 */
	public boolean settlesAfterResponse() {
		for (TierOnRoute tier : this.tiersByName.values()) {
			if (tier.plan() != null) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Judge a request in a filter chain: the request's tier first.
	 * @param exchange the request
	 * @param chain the rest of the request's filter chain
	 * @param next how the chain goes on with the request, when it is let through
	 * @return completes when the request has been answered or passed on
	 * @throws IllegalStateException when this judge is a {@code RateLimiter} bean's
	 */
	public <C> Mono<Void> judge(ServerWebExchange exchange, C chain, Next<C> next) {
		if (this.lookups == null) {
			throw new IllegalStateException("A RateLimiter bean's judge is given keys, not requests");
		}
		if (!this.route.scope().covers(exchange.getRequest())) {
			return next.proceed(chain, exchange);
		}
		long start = MonotonicClock.SYSTEM.nanoTime();
		// Without configured API keys no header can name one: not read at all.
		String apiKey = this.tiersByApiKey.isEmpty() ? null
				: exchange.getRequest().getHeaders().getFirst(this.route.apiKeyHeader());
		String apiKeyTier = (apiKey != null) ? this.tiersByApiKey.get(apiKey) : null;
		String knownApiKey = (apiKeyTier != null) ? apiKey : null;
		if (this.lookups.tiers() instanceof TierLookup.InRequest tiers) {
			return withTier(exchange, chain, next, tier(tiers.read(exchange, apiKeyTier)), knownApiKey, start);
		}
		return ((TierLookup.Awaited) this.lookups.tiers()).resolve(exchange, apiKeyTier)
			.onErrorResume(this::tierLookupFailed)
			.map(this::tier)
			.defaultIfEmpty(this.defaultTier)
			.flatMap((tier) -> withTier(exchange, chain, next, tier, knownApiKey, start));
	}

	/**
	 * Then, unless its client is exempt, its cost.
	 */
	private <C> Mono<Void> withTier(ServerWebExchange exchange, C chain, Next<C> next, TierOnRoute tier,
			@Nullable String knownApiKey, long start) {
		if (this.route.scope().exempts(exchange.getRequest(), knownApiKey, tier.name())) {
			tier.listeners().notify(Outcome.EXEMPT, 0);
			return next.proceed(chain, exchange);
		}
		CostLookup costs = this.lookups.costs();
		if (costs instanceof CostLookup.InRequest inRequest) {
			return withCost(exchange, chain, next, tier, inRequest.read(exchange), knownApiKey, start);
		}
		return ((CostLookup.Awaited) costs).resolve(exchange)
			.flatMap((cost) -> withCost(exchange, chain, next, tier, cost, knownApiKey, start));
	}

	/**
	 * Then, for a cost the tier could admit, its key.
	 */
	private <C> Mono<Void> withCost(ServerWebExchange exchange, C chain, Next<C> next, TierOnRoute tier,
			long cost, @Nullable String knownApiKey, long start) {
		if (!tier.judged().admits(cost)) {
			return rejectInvalidCost(exchange, tier, cost);
		}
		KeyLookup keys = this.lookups.keys();
		if (keys instanceof KeyLookup.InRequest inRequest) {
			return withKey(exchange, chain, next, tier, cost, inRequest.read(exchange, knownApiKey), start);
		}
		return ((KeyLookup.Awaited) keys).resolve(exchange, knownApiKey)
			.defaultIfEmpty(NO_KEY)
			.onErrorResume(this::keyLookupFailed)
			.flatMap((key) -> (key != KEY_LOOKUP_FAILED)
					? withKey(exchange, chain, next, tier, cost, (key != NO_KEY) ? key : null, start)
					: decided(exchange, chain, next, tier, null, cost, Verdict.FAIL_OPEN, start));
	}

	/**
	 * Then, for a request with a key, the store's decision.
	 */
	private <C> Mono<Void> withKey(ServerWebExchange exchange, C chain, Next<C> next, TierOnRoute tier, long cost,
			@Nullable String key, long start) {
		if (key == null) {
			return rejectMissingKey(exchange, tier);
		}
		BucketId bucket = new BucketId(this.route.policyId(), tier.name(), key);
		Verdict now = decideNow(bucket, tier, cost);
		if (now != null) {
			return decided(exchange, chain, next, tier, bucket, cost, now, start);
		}
		return decideLater(bucket, tier, cost)
			.flatMap((verdict) -> decided(exchange, chain, next, tier, bucket, cost, verdict, start));
	}

	/**
	 * Then what the decision says: the request goes on, at once or once held, or is
	 * rejected.
	 * @param bucket the bucket judged, {@code null} when none was (a verdict without
	 * delay)
	 */
	private <C> Mono<Void> decided(ServerWebExchange exchange, C chain, Next<C> next, TierOnRoute tier,
			@Nullable BucketId bucket, long cost, Verdict verdict, long start) {
		if (bucket != null && holds(verdict)) {
			// Deferred, so that a place is taken only by a request whose chain goes on.
			return Mono.defer(() -> {
				tookSlot(tier, verdict);
				if (!this.held.tryTake()) {
					return holdsFull(exchange, tier, bucket, cost, verdict, start);
				}
				conclude(tier, verdict, start, exchange.getResponse().getHeaders());
				return this.held.hold(
						Mono.defer(() -> forward(exchange, chain, next, tier, bucket, cost, verdict,
								verdict.delayNanos())),
						bucket, tier, taken(cost), verdict.delayNanos());
			});
		}
		if (!conclude(tier, verdict, start, exchange.getResponse().getHeaders())) {
			tookSlot(tier, verdict);
			return forward(exchange, chain, next, tier, bucket, cost, verdict, 0);
		}
		return reject(exchange, this.penalties.reason(verdict), HttpStatus.TOO_MANY_REQUESTS,
				this.penalties.detail(tier.judged(), verdict), verdict.retryAfterSeconds(),
				tier.judged().violatedPolicies(verdict), tier);
	}

	/**
	 * The one place an admitted request leaves the judge for the rest of the chain (shadow
	 * rejections and a store failing open included): holding a request before it is
	 * forwarded (shaping) wraps this call, and settling its decision once the exchange
	 * shows it (costs the upstream reports, counted responses, in-flight limits) happens
	 * here. Only a request its limits admitted is settled: a rejection a shadow policy
	 * lets through took nothing, and a verdict of no limit (a store failing open)
	 * consulted none. Everything else goes on as it came, with nothing allocated.
	 * @param bucket the bucket judged, {@code null} when none was
	 * @param heldNanos how long the request was held before going on
	 */
	private <C> Mono<Void> forward(ServerWebExchange exchange, C chain, Next<C> next, TierOnRoute tier,
			@Nullable BucketId bucket, long cost, Verdict verdict, long heldNanos) {
		SettlementPlan plan = tier.plan();
		if (plan == null || bucket == null || !verdict.allowed() || verdict.limitCount() == 0) {
			return next.proceed(chain, exchange);
		}
		return new ExchangeSettlement(this.settler, tier, plan, bucket, cost, verdict, heldNanos,
				exchange.getResponse())
			.forward(exchange, chain, next);
	}

	/**
	 * Tell the listeners of the slot an admitted request took in its tier's in-flight
	 * limits, which its settlement gives back.
	 */
	private void tookSlot(TierOnRoute tier, Verdict verdict) {
		if (tier.inFlight() && verdict.allowed() && verdict.limitCount() > 0) {
			tier.listeners().notifySlotTaken();
		}
	}

	/**
	 * The units a request's decision took: its cost, unless it was only checked.
	 */
	private long taken(long cost) {
		return this.checks ? 0 : cost;
	}

	/**
	 * Judge a request known only by its key, for a {@code RateLimiter} bean, which sees
	 * no request: the key's tier when it is a configured API key, else the default tier;
	 * the policy's cost; then the store's decision, concluded as for any request.
	 * @param key the bucket's key
	 * @param answer makes the bean's response of the judgement
	 * @return the response, with the rate limit headers and, when rejected,
	 * {@code Retry-After}
	 */
	public <R> Mono<R> judge(String key, Answer<R> answer) {
		long start = MonotonicClock.SYSTEM.nanoTime();
		TierOnRoute tier = tier(this.tiersByApiKey.get(key));
		if (this.route.scope().exemptsKey(key, tier.name())) {
			tier.listeners().notify(Outcome.EXEMPT, 0);
			return Mono.just(answer.of(true, new HttpHeaders()));
		}
		long cost = this.route.cost();
		BucketId bucket = new BucketId(this.route.policyId(), tier.name(), key);
		Verdict now = decideNow(bucket, tier, cost);
		if (now != null) {
			return answer(tier, bucket, cost, now, start, answer);
		}
		return decideLater(bucket, tier, cost).flatMap((verdict) -> answer(tier, bucket, cost, verdict, start, answer));
	}

	/**
	 * The bean's response, held as a filter holds its request: the bean's caller forwards
	 * the request when it gets the response.
	 */
	private <R> Mono<R> answer(TierOnRoute tier, BucketId bucket, long cost, Verdict verdict, long start,
			Answer<R> answer) {
		HttpHeaders headers = new HttpHeaders();
		if (holds(verdict)) {
			// Deferred, so that a place is taken only by an answer awaited.
			return Mono.defer(() -> {
				if (!this.held.tryTake()) {
					this.held.giveBack(bucket, tier, taken(cost), 0);
					tier.listeners().notify(Outcome.HOLDS_FULL, MonotonicClock.SYSTEM.nanoTime() - start);
					headers.set(HttpHeaders.RETRY_AFTER, HeaderNumbers.of(HeldRelease.retryAfterWhenFull(verdict)));
					return Mono.just(answer.of(false, headers));
				}
				conclude(tier, verdict, start, headers);
				return this.held.hold(Mono.just(answer.of(true, headers)), bucket, tier, taken(cost),
						verdict.delayNanos());
			});
		}
		boolean rejected = conclude(tier, verdict, start, headers);
		return Mono.just(answer.of(!rejected, headers));
	}

	/**
	 * Whether the request is to be held: a shaping limit admitted it for later and the
	 * policy enforces (a shadow policy only counts the hold). A store's failure mode
	 * never holds.
	 */
	private boolean holds(Verdict verdict) {
		return verdict.delayNanos() > 0 && !this.route.shadow();
	}

	/**
	 * A request a limit would hold while this node holds as many as it may: its place is
	 * given back and it is answered with 503, the node's limit rather than the client's
	 * quota (RFC 9110 section 15.6.4), with {@code Retry-After} (section 10.2.3).
	 */
	private Mono<Void> holdsFull(ServerWebExchange exchange, TierOnRoute tier, BucketId bucket, long cost,
			Verdict verdict, long start) {
		this.held.giveBack(bucket, tier, taken(cost), 0);
		tier.listeners().notify(Outcome.HOLDS_FULL, MonotonicClock.SYSTEM.nanoTime() - start);
		long retryAfter = HeldRelease.retryAfterWhenFull(verdict);
		exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, HeaderNumbers.of(retryAfter));
		return reject(exchange, Reason.HOLDS_FULL, HttpStatus.SERVICE_UNAVAILABLE,
				"This gateway already holds as many requests as it may (" + this.held.max() + ")", retryAfter,
				List.of(), tier);
	}

	/**
	 * The store's decision when it is known at once, in this node's memory; else
	 * {@code null}, nothing was consumed, and {@link #decideLater} awaits it. A policy
	 * that counts responses is checked: its cost is taken once the status is known.
	 */
	private @Nullable Verdict decideNow(BucketId bucket, TierOnRoute tier, long cost) {
		try {
			return this.checks ? this.store.checkNow(bucket, tier.judged().tier(), cost)
					: this.store.acquireNow(bucket, tier.judged().tier(), cost);
		}
		catch (RuntimeException ex) {
			return storeFailed(ex);
		}
	}

	/**
	 * The store's decision when it has to be awaited, seen to its end even when the
	 * request is cancelled meanwhile (its client gone): a remote store has taken what it
	 * admitted by the time it answers, and a request that never went on gives that back,
	 * its slots included.
	 */
	private Mono<Verdict> decideLater(BucketId bucket, TierOnRoute tier, long cost) {
		Mono<Verdict> decision = Mono
			.defer(() -> this.checks ? this.store.check(bucket, tier.judged().tier(), cost)
					: this.store.acquire(bucket, tier.judged().tier(), cost))
			.switchIfEmpty(Mono.fromSupplier(() -> storeFailed(null)))
			.onErrorResume((error) -> Mono.just(storeFailed(error)));
		long decidedAt = MonotonicClock.SYSTEM.nanoTime();
		return AwaitedDecision.of(decision, (verdict) -> abandoned(bucket, tier, cost, verdict, decidedAt));
	}

	/**
	 * Give back what a decision its request no longer awaited took: nothing when it
	 * refused, or consulted no limit.
	 */
	private void abandoned(BucketId bucket, TierOnRoute tier, long cost, Verdict verdict, long decidedAt) {
		if (!verdict.allowed() || verdict.limitCount() == 0) {
			return;
		}
		tookSlot(tier, verdict);
		this.settler.settleLater(bucket, tier, new Settlement(-taken(cost),
				Math.max(0, MonotonicClock.SYSTEM.nanoTime() - decidedAt), true, verdict.fallback()));
	}

	/**
	 * What every entry point does with a decision: tells the listeners (of a penalty
	 * block the breach started too), writes the rate limit headers and, on a rejection,
	 * {@code Retry-After}, in delay-seconds (RFC 9110 section 10.2.3) like the headers'
	 * resets, so that both reference the same instant; a block's, the time it has left.
	 * @return whether the request is rejected
	 */
	private boolean conclude(TierOnRoute tier, Verdict verdict, long start, HttpHeaders headers) {
		Outcome outcome = Outcome.of(verdict, this.route.shadow());
		long decisionNanos = MonotonicClock.SYSTEM.nanoTime() - start;
		if (verdict.delayNanos() > 0) {
			tier.listeners().notifyDelayed(outcome, decisionNanos, verdict.delayNanos());
		}
		else {
			tier.listeners().notify(outcome, decisionNanos);
		}
		if (verdict.startedBlock()) {
			tier.listeners().notifyBlockStarted(verdict.block().step());
		}
		if (verdict.limitCount() > 0) {
			tier.judged().headers().write(headers, verdict);
		}
		boolean rejected = !verdict.allowed() && !this.route.shadow();
		if (rejected) {
			headers.set(HttpHeaders.RETRY_AFTER, HeaderNumbers.of(verdict.retryAfterSeconds()));
		}
		return rejected;
	}

	/**
	 * The tier of a tier name; the default tier for no name or one this policy does not
	 * list.
	 */
	private TierOnRoute tier(@Nullable String tierName) {
		return (tierName != null) ? this.tiersByName.getOrDefault(tierName, this.defaultTier) : this.defaultTier;
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
	 * A tier lookup that fails must not take requests down with it: they get the default
	 * tier.
	 */
	private Mono<String> tierLookupFailed(Throwable error) {
		lookupFailures.warn(() -> "Resolving the tier failed for policy '" + this.route.policyId() + "' on route '"
				+ this.route.routeId() + "'; judging the request under the default tier", error);
		return Mono.empty();
	}

	/**
	 * A key lookup that fails lets the request through, as a failing store does: the
	 * limiter must not turn its own failure into the client's error.
	 */
	private Mono<String> keyLookupFailed(Throwable error) {
		lookupFailures.warn(() -> "Rate limit key resolver of policy '" + this.route.policyId()
				+ "' failed on route '" + this.route.routeId()
				+ "'; letting the request through without a rate limit decision", error);
		return Mono.just(KEY_LOOKUP_FAILED);
	}

	private Mono<Void> rejectMissingKey(ServerWebExchange exchange, TierOnRoute tier) {
		tier.listeners().notify(Outcome.MISSING_KEY, 0);
		return reject(exchange, Reason.MISSING_KEY, this.route.missingKeyStatus(), this.route.missingKeyDetail(), 0,
				List.of(), tier);
	}

	private Mono<Void> rejectInvalidCost(ServerWebExchange exchange, TierOnRoute tier, long cost) {
		tier.listeners().notify(Outcome.INVALID_COST, 0);
		String costHeader = this.route.costHeader();
		String detail = tier.judged().invalidCostDetail(costHeader, cost,
				(costHeader != null) ? exchange.getRequest().getHeaders().getFirst(costHeader) : null);
		return reject(exchange, Reason.INVALID_COST, HttpStatus.BAD_REQUEST, detail, 0, List.of(), tier);
	}

	private Mono<Void> reject(ServerWebExchange exchange, Reason reason, HttpStatusCode status, String detail,
			long retryAfterSeconds, List<String> violatedLimits, TierOnRoute tier) {
		RateLimitRejection rejection = new RateLimitRejection(reason, status, detail, retryAfterSeconds,
				violatedLimits, this.route.policyId(), tier.name(), this.route.routeId());
		return this.rejectionHandler.reject(exchange, rejection);
	}

	public String policyId() {
		return this.route.policyId();
	}

	public String storeName() {
		return this.storeName;
	}

	public boolean shadow() {
		return this.route.shadow();
	}

	/**
	 * How a filter chain goes on with an exchange: a gateway's or a web filter chain.
	 * Given as a method reference that captures nothing, so that passing it allocates
	 * nothing per request.
	 */
	@FunctionalInterface
	public interface Next<C> {

		Mono<Void> proceed(C chain, ServerWebExchange exchange);

	}

	/**
	 * The response a {@code RateLimiter} bean makes of a judgement. Given as a lambda that
	 * captures nothing, so that passing it allocates nothing per request.
	 */
	@FunctionalInterface
	public interface Answer<R> {

		/**
		 * @param allowed whether the request may go on
		 * @param headers the rate limit headers, and {@code Retry-After} when rejected
		 */
		R of(boolean allowed, HttpHeaders headers);

	}

	/**
	 * What a route's judge knows of its policy and route.
	 *
	 * @param policyId the policy's id
	 * @param routeId the route's id
	 * @param shadow whether rejections are only counted and reported
	 * @param apiKeyHeader the header carrying the API key
	 * @param cost the policy's cost, what a request known only by its key costs
	 * @param costHeader the policy's cost header, or {@code null}
	 * @param missingKeyStatus the status of a request without a key, when the policy
	 * rejects those
	 * @param missingKeyDetail the detail of that rejection: which key the request lacks
	 * @param afterResponse what the policy settles once the response is known
	 * @param scope which requests the policy applies to and which clients it exempts
	 */
	record RouteSettings(String policyId, String routeId, boolean shadow, String apiKeyHeader, long cost,
			@Nullable String costHeader, HttpStatusCode missingKeyStatus, String missingKeyDetail,
			AfterResponse afterResponse, ScopeCheck scope) {
	}

	/**
	 * How the route reads a request's tier, cost and key.
	 */
	record Lookups(TierLookup tiers, CostLookup costs, KeyLookup keys) {
	}

	/**
	 * A policy's tier as this route serves it: how it is judged, the listeners of its
	 * decisions here, and what its admitted requests settle after the fact.
	 *
	 * @param plan what an admitted request's exchange settles, {@code null} when
	 * nothing
	 */
	record TierOnRoute(JudgedTier judged, DecisionListeners.Bound listeners, @Nullable SettlementPlan plan) {

		String name() {
			return this.judged.tier().name();
		}

		/**
		 * Whether a limit of the tier counts requests in flight.
		 */
		boolean inFlight() {
			return this.plan != null && this.plan.inFlight();
		}

	}

}
