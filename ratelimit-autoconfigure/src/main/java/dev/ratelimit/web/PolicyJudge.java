package dev.ratelimit.web;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.AfterResponse;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.support.ThrottledLog;
import dev.ratelimit.web.RateLimitRejection.Reason;
import io.micrometer.observation.Observation;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.server.ServerWebExchange;

/**
 * One policy of a route, as the route's {@link RequestJudge} applies it: everything the
 * request path does for that policy alone. Its tiers as the route serves them, the
 * request's cost and key under it, and the refusals they alone decide; its store's
 * decision; what it tells its own listeners; and how it gives back, through its
 * {@link RouteSettler}, what its decision took. The route's judge asks each of its
 * policies in turn, in the order the route names them, and decides what is done with the
 * request from their answers.
 * <p>
 * Each step's answer is either known at once (read from the request, decided in this
 * node's memory), or awaited: a step then answers a {@code Mono} that completes once
 * the {@link PolicyJudgement} holds it, and nothing is allocated when nothing has to be
 * waited for.
 */
final class PolicyJudge {

	// Logged as the request path is, under RequestJudge.
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

	private final Map<String, TierOnRoute> tiersByName;

	private final TierOnRoute defaultTier;

	/**
	 * How the route reads a request's cost and key under this policy; {@code null} for
	 * a judge that is only given keys, a {@code RateLimiter} bean's.
	 */
	private final @Nullable Lookups lookups;

	private final RouteSettler settler;

	/**
	 * Whether requests are checked rather than acquired: a policy that counts responses
	 * takes their cost once the status is known.
	 */
	private final boolean checks;

	/**
	 * Tells how long ago a request was decided, as settlements tell the store.
	 */
	private final MonotonicClock clock;

	/**
	 * What a refusal says when the policy's penalty box had a part in it.
	 */
	private final PenaltyVerdicts penalties;

	/**
	 * Observes the store's decisions, {@code null} when nothing does.
	 */
	private final @Nullable DecisionObservations observations;

	/**
	 * @param tiers the policy's tiers by name, each with its place among every tier of
	 * the route's policies ({@link TierOnRoute#ordinal()})
	 * @param clock the clock the in-memory store decides by
	 * @param penalties what a refusal a penalty block had a part in says; {@code store}
	 * decides under the policy's penalty box ({@link PenaltyVerdicts#decider})
	 * @param observations observes the store's decisions, or {@code null}
	 */
	PolicyJudge(RouteSettings route, BucketDecider store, Map<String, TierOnRoute> tiers, String defaultTier,
			@Nullable Lookups lookups, MonotonicClock clock, PenaltyVerdicts penalties,
			@Nullable DecisionObservations observations) {
		this.route = route;
		this.store = store;
		this.storeName = store.name();
		this.tiersByName = new HashMap<>(tiers);
		this.defaultTier = this.tiersByName.get(defaultTier);
		this.lookups = lookups;
		this.settler = new RouteSettler(store, route.policyId(), route.routeId());
		this.checks = route.afterResponse().countResponses() != null;
		this.clock = clock;
		this.penalties = penalties;
		this.observations = observations;
	}

	/**
	 * The tier of a tier name; the default tier for no name or one this policy does not
	 * list.
	 */
	TierOnRoute tier(@Nullable String tierName) {
		return (tierName != null) ? this.tiersByName.getOrDefault(tierName, this.defaultTier) : this.defaultTier;
	}

	/**
	 * Whether a tier settles its requests after their responses or limits requests in
	 * flight: the exchange must be seen to its end.
	 */
	boolean settlesAfterResponse() {
		for (TierOnRoute tier : this.tiersByName.values()) {
			if (tier.plan() != null) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether the policy judges the request at all: it applies to the request's method
	 * and path, and does not exempt its client (its address, API key or tier), which is
	 * told to the listeners.
	 */
	boolean judges(ServerWebExchange exchange, @Nullable String knownApiKey, TierOnRoute tier) {
		if (!this.route.scope().covers(exchange.getRequest())) {
			return false;
		}
		if (this.route.scope().exempts(exchange.getRequest(), knownApiKey, tier.name())) {
			tier.listeners().notify(Outcome.EXEMPT, 0);
			return false;
		}
		return true;
	}

	/**
	 * Whether the policy exempts a request known only by its key, for a
	 * {@code RateLimiter} bean: the key is the API key, as it is for the tier.
	 */
	boolean exemptsKey(String key, TierOnRoute tier) {
		if (this.route.scope().exemptsKey(key, tier.name())) {
			tier.listeners().notify(Outcome.EXEMPT, 0);
			return true;
		}
		return false;
	}

	/**
	 * Look up what the request costs under this policy and, for a cost its tier could
	 * admit, its key: the bucket to judge, or a refusal before deciding (a cost the tier
	 * could never admit, no key), or a verdict of no limit (the key's lookup failed).
	 * @param knownApiKey the request's API key when it is a configured one, otherwise
	 * {@code null}
	 * @return {@code null} when {@code judgement} holds the answer already; otherwise
	 * completes once it does
	 */
	@Nullable Mono<Void> lookUp(ServerWebExchange exchange, @Nullable String knownApiKey, PolicyJudgement judgement) {
		CostLookup costs = this.lookups.costs();
		if (costs instanceof CostLookup.InRequest inRequest) {
			return withCost(exchange, knownApiKey, judgement, inRequest.read(exchange));
		}
		return ((CostLookup.Awaited) costs).resolve(exchange).flatMap((cost) -> {
			Mono<Void> key = withCost(exchange, knownApiKey, judgement, cost);
			return (key != null) ? key : Mono.empty();
		});
	}

	private @Nullable Mono<Void> withCost(ServerWebExchange exchange, @Nullable String knownApiKey,
			PolicyJudgement judgement, long cost) {
		judgement.cost(cost);
		if (!judgement.tier().judged().admits(cost)) {
			judgement.refuseBeforeDeciding(Outcome.INVALID_COST);
			return null;
		}
		KeyLookup keys = this.lookups.keys();
		if (keys instanceof KeyLookup.InRequest inRequest) {
			withKey(judgement, inRequest.read(exchange, knownApiKey));
			return null;
		}
		return ((KeyLookup.Awaited) keys).resolve(exchange, knownApiKey)
			.defaultIfEmpty(NO_KEY)
			.onErrorResume(this::keyLookupFailed)
			.doOnNext((key) -> {
				if (key != KEY_LOOKUP_FAILED) {
					withKey(judgement, (key != NO_KEY) ? key : null);
				}
				else {
					judgement.decided(Verdict.FAIL_OPEN);
				}
			})
			.then();
	}

	/**
	 * The bucket of a request with a key; a request without one is refused.
	 */
	void withKey(PolicyJudgement judgement, @Nullable String key) {
		if (key == null) {
			judgement.refuseBeforeDeciding(Outcome.MISSING_KEY);
			return;
		}
		judgement.bucket(new BucketId(this.route.policyId(), judgement.tier().name(), key));
	}

	/**
	 * The store's decision when it is known at once, in this node's memory; else
	 * {@code null}, nothing was consumed, and {@link #decideLater} awaits it. A policy
	 * that counts responses is checked: its cost is taken once the status is known.
	 * @param observation observes the decision, stopped here when its verdict is known
	 * at once (else {@link #decideLater} stops it), or {@code null}
	 */
	@Nullable Verdict decideNow(PolicyJudgement judgement, @Nullable Observation observation) {
		Verdict now;
		try {
			now = this.checks
					? this.store.checkNow(judgement.bucket(), judgement.tier().judged().tier(), judgement.cost())
					: this.store.acquireNow(judgement.bucket(), judgement.tier().judged().tier(), judgement.cost());
		}
		catch (RuntimeException ex) {
			now = storeFailed(ex);
		}
		if (now != null && observation != null) {
			DecisionObservations.stop(observation, Outcome.of(now, this.route.shadow()));
		}
		return now;
	}

	/**
	 * Start observing the store's decision of a request, for a judge whose decisions are
	 * observed: {@link #decideNow} then, if need be, {@link #decideLater} decide it and
	 * stop it with the verdict.
	 * @param request the request's Reactor context, where its own observation is
	 */
	Observation observe(PolicyJudgement judgement, ContextView request) {
		return this.observations.start(request, this.route.policyId(), judgement.tier().name(),
				this.route.routeId(), this.storeName);
	}

	/**
	 * The store's decision when it has to be awaited, seen to its end even when the
	 * request is cancelled meanwhile (its client gone): a remote store has taken what it
	 * admitted by the time it answers, and a request that never went on gives that back,
	 * its slots included.
	 * @param observation observes the decision until its verdict, or {@code null}
	 * @param cancelled runs when the request is cancelled before the answer came
	 */
	Mono<Verdict> decideLater(PolicyJudgement judgement, @Nullable Observation observation, Runnable cancelled) {
		BucketId bucket = judgement.bucket();
		Mono<Verdict> decision = Mono
			.defer(() -> this.checks ? this.store.check(bucket, judgement.tier().judged().tier(), judgement.cost())
					: this.store.acquire(bucket, judgement.tier().judged().tier(), judgement.cost()))
			.switchIfEmpty(Mono.fromSupplier(() -> storeFailed(null)))
			.onErrorResume((error) -> Mono.just(storeFailed(error)));
		if (observation != null) {
			decision = DecisionObservations.awaited(decision, observation, this.route.shadow());
		}
		return AwaitedDecision.of(decision, (verdict) -> {
			judgement.decided(verdict);
			abandoned(judgement);
		}, cancelled);
	}

	/**
	 * Give back what a decision took of a request that is no longer judged (its client
	 * gone before every policy had decided), telling the listeners of the slot it took
	 * and gave back.
	 */
	void abandoned(PolicyJudgement judgement) {
		if (judgement.verdict() != null) {
			notifySlotTaken(judgement);
			giveBackLater(judgement);
		}
	}

	/**
	 * Tell the listeners what the policy decided of a request it judged.
	 */
	void notifyDecided(PolicyJudgement judgement, long decisionNanos) {
		Verdict verdict = judgement.verdict();
		Outcome outcome = Outcome.of(verdict, this.route.shadow());
		if (verdict.delayNanos() > 0) {
			judgement.tier().listeners().notifyDelayed(outcome, decisionNanos, verdict.delayNanos());
		}
		else {
			judgement.tier().listeners().notify(outcome, decisionNanos);
		}
		if (verdict.startedBlock()) {
			judgement.tier().listeners().notifyBlockStarted(verdict.block().step());
		}
	}

	/**
	 * Tell the listeners of the slot an admitted request took in its tier's in-flight
	 * limits, which its settlement gives back.
	 */
	void notifySlotTaken(PolicyJudgement judgement) {
		if (judgement.tookSlot()) {
			judgement.tier().listeners().notifySlotTaken();
		}
	}

	/**
	 * Give back, told to the listeners as any settlement, what the decision took of a
	 * request that never went on: held, its client gone, or refused for want of a place
	 * to hold it.
	 */
	void giveBackLater(PolicyJudgement judgement) {
		if (judgement.tookAnything()) {
			this.settler.settleLater(judgement.bucket(), judgement.tier(), judgement.neverForwarded());
		}
	}

	/**
	 * Give back what the decision took of a request another policy of the route refused,
	 * telling the listeners nothing: this policy reports only the requests its decision
	 * settles, so that what it counts as allowed went on.
	 * @return completes once the store has given it back, {@code judgement} describing
	 * the bucket as it is then
	 */
	Mono<Void> giveBackRefused(PolicyJudgement judgement) {
		if (!judgement.tookAnything()) {
			return Mono.empty();
		}
		return this.settler.giveBack(judgement.bucket(), judgement.tier(), judgement.neverForwarded())
			.doOnNext(judgement::describe)
			.then();
	}

	/**
	 * The units a request's decision took: its cost, unless it was only checked.
	 */
	long taken(long cost) {
		return this.checks ? 0 : cost;
	}

	/**
	 * The refusal of a request over a limit, or refused by its store's failure mode.
	 */
	RateLimitRejection overLimit(PolicyJudgement judgement) {
		Verdict verdict = judgement.verdict();
		JudgedTier tier = judgement.tier().judged();
		return rejection(this.penalties.reason(verdict), HttpStatus.TOO_MANY_REQUESTS,
				this.penalties.detail(tier, verdict), verdict.retryAfterSeconds(), tier.violatedPolicies(verdict),
				judgement);
	}

	/**
	 * The refusal of a request before deciding, its listeners told of it.
	 */
	RateLimitRejection refusedBeforeDeciding(ServerWebExchange exchange, PolicyJudgement judgement) {
		Outcome outcome = judgement.refusedBeforeDeciding();
		judgement.tier().listeners().notify(outcome, 0);
		if (outcome == Outcome.MISSING_KEY) {
			return rejection(Reason.MISSING_KEY, this.route.missingKeyStatus(), this.route.missingKeyDetail(), 0,
					List.of(), judgement);
		}
		String costHeader = this.route.costHeader();
		String detail = judgement.tier()
			.judged()
			.invalidCostDetail(costHeader, judgement.cost(),
					(costHeader != null) ? exchange.getRequest().getHeaders().getFirst(costHeader) : null);
		return rejection(Reason.INVALID_COST, HttpStatus.BAD_REQUEST, detail, 0, List.of(), judgement);
	}

	RateLimitRejection rejection(Reason reason, HttpStatusCode status, String detail, long retryAfterSeconds,
			List<String> violatedLimits, PolicyJudgement judgement) {
		return new RateLimitRejection(reason, status, detail, retryAfterSeconds, violatedLimits,
				this.route.policyId(), judgement.tier().name(), this.route.routeId());
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
	 * A key lookup that fails lets the request through, as a failing store does: the
	 * limiter must not turn its own failure into the client's error.
	 */
	private Mono<String> keyLookupFailed(Throwable error) {
		lookupFailures.warn(() -> "Rate limit key resolver of policy '" + this.route.policyId()
				+ "' failed on route '" + this.route.routeId()
				+ "'; letting the request through without a rate limit decision", error);
		return Mono.just(KEY_LOOKUP_FAILED);
	}

	RouteSettler settler() {
		return this.settler;
	}

	MonotonicClock clock() {
		return this.clock;
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
	 * What a request known only by its key costs: the policy's cost.
	 */
	long cost() {
		return this.route.cost();
	}

	/**
	 * What a route's judge knows of one of its policies.
	 *
	 * @param policyId the policy's id
	 * @param routeId the route's id
	 * @param shadow whether rejections are only counted and reported
	 * @param cost the policy's cost, what a request known only by its key costs
	 * @param costHeader the policy's cost header, or {@code null}
	 * @param missingKeyStatus the status of a request without a key, when the policy
	 * rejects those
	 * @param missingKeyDetail the detail of that rejection: which key the request lacks
	 * @param afterResponse what the policy settles once the response is known
	 * @param scope which requests the policy applies to and which clients it exempts
	 */
	record RouteSettings(String policyId, String routeId, boolean shadow, long cost, @Nullable String costHeader,
			HttpStatusCode missingKeyStatus, String missingKeyDetail, AfterResponse afterResponse,
			ScopeCheck scope) {
	}

	/**
	 * How the route reads a request's cost and key under the policy.
	 */
	record Lookups(CostLookup costs, KeyLookup keys) {
	}

	/**
	 * A policy's tier as this route serves it: how it is judged, the listeners of its
	 * decisions here, and what its admitted requests settle after the fact.
	 *
	 * @param plan what an admitted request's exchange settles, {@code null} when
	 * nothing
	 * @param ordinal the tier's place among every tier of the route's policies, the
	 * policies in the route's order, so that the headers of a request several policies
	 * admitted are found by the tiers that judged it
	 */
	record TierOnRoute(JudgedTier judged, DecisionListeners.Bound listeners, @Nullable SettlementPlan plan,
			int ordinal) {

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
