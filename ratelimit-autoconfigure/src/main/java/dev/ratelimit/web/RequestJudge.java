package dev.ratelimit.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.support.ThrottledLog;
import dev.ratelimit.web.RateLimitRejection.Reason;
import io.micrometer.observation.Observation;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebExchange;

/**
 * The request path: judges the requests of one route under the policies it names, for
 * every entry point (the gateway's {@code RateLimit} filter, a policy's
 * {@code RateLimiter} bean, the plain WebFlux filter). It reads top to bottom: the
 * request's tier; the policies that apply to the request and do not exempt its client;
 * under each of them in turn, its cost and key; each policy's decision in
 * turn; then what is done with the request: listeners told, one set of rate limit
 * headers and {@code Retry-After} written, and the request forwarded, held then
 * forwarded (shaping), or rejected. What belongs to one policy alone is its
 * {@link PolicyJudge}'s. A decision the exchange settles afterwards (a counted response,
 * a cost the response reports, a slot in flight) is settled by an
 * {@link ExchangeSettlement} per policy wrapped around {@link #forward}, through the
 * policy's {@link RouteSettler}, which also gives back what a request that never went
 * on took.
 * <p>
 * A route's policies judge a request together, all or nothing. Every policy's cost and
 * key are looked up before any is decided, so that a request refused for them (no key,
 * a cost a tier could never admit) takes nothing. The policies then decide in the
 * order the route names them; the first to refuse ends the judgement: the policies
 * after it are not asked, and what those before it took is given back exactly, through
 * the store's settlement, before the refusal is answered. So no policy admits more than
 * it would alone. A request several policies admit is held for the longest hold any
 * asks, and every one settles its own share of the exchange.
 * <p>
 * Each step's answer is either known at once (read from the request, decided in this
 * node's memory) and the next step is called directly, or awaited, and the same next
 * step is called from the {@code Mono}: one flow, without a reactive operator when
 * nothing has to be waited for. Everything that does not depend on the request was
 * resolved when the route was built.
 */
public final class RequestJudge {

	private static final ThrottledLog lookupFailures = new ThrottledLog(LogFactory.getLog(RequestJudge.class));

	/**
	 * Stands for an awaited tier that is missing: the default tier; recognised by
	 * identity, never a tier's name.
	 */
	private static final String DEFAULT_TIER = new String("default tier");

	private final String routeId;

	private final String apiKeyHeader;

	private final Map<String, String> tiersByApiKey;

	/**
	 * How the route reads a request's tier; {@code null} for a judge that is only given
	 * keys, a {@code RateLimiter} bean's.
	 */
	private final @Nullable TierLookup tiers;

	/**
	 * The route's policies, in the order it names them.
	 */
	private final PolicyJudge[] policies;

	private final RouteHeaders headers;

	private final RateLimitRejectionHandler rejectionHandler;

	private final HeldRelease held;

	/**
	 * Observes each policy's decision, {@code null} when nothing does.
	 */
	private final @Nullable DecisionObservations observations;

	/**
	 * @param tiers how the route reads a request's tier, or {@code null} for a
	 * {@code RateLimiter} bean's judge, which is given keys
	 * @param policies the route's policies, in the order it names them, at least one; a
	 * {@code RateLimiter} bean's judge has one
	 * @param observations observes each policy's decision, or {@code null}
	 * @throws IllegalStateException when the judge is a {@code RateLimiter} bean's (no
	 * {@code tiers}) and the policy settles after the response or a tier limits
	 * requests in flight: the bean never sees the response
	 */
	RequestJudge(String routeId, String apiKeyHeader, Map<String, String> tiersByApiKey,
			@Nullable TierLookup tiers, List<PolicyJudge> policies, HeaderStyle headerStyle,
			RateLimitRejectionHandler rejectionHandler, HeldRequests held,
			@Nullable DecisionObservations observations) {
		this.routeId = routeId;
		this.apiKeyHeader = apiKeyHeader;
		this.tiersByApiKey = tiersByApiKey;
		this.tiers = tiers;
		this.policies = policies.toArray(new PolicyJudge[0]);
		this.headers = new RouteHeaders(headerStyle, this.policies[0].clock());
		this.rejectionHandler = rejectionHandler;
		this.held = new HeldRelease(held);
		this.observations = observations;
		if (tiers == null && settlesAfterResponse()) {
			throw new IllegalStateException("Rate limit policy '" + this.policies[0].policyId()
					+ "' settles its requests once their response is known (count-responses, cost-from-response or "
					+ "an algorithm: concurrency limit), which a RateLimiter bean never sees: Spring Cloud Gateway's "
					+ "RequestRateLimiter forwards the request itself; use the RateLimit filter on route '"
					+ routeId + "' instead");
		}
	}

	/**
	 * Whether a policy settles a request after its response or a tier limits requests in
	 * flight: the exchange must be seen to its end, which a route's filter does, and a
	 * gateway's before the response is written ({@code NettyWriteResponseFilter}).
	 */
	public boolean settlesAfterResponse() {
		for (PolicyJudge policy : this.policies) {
			if (policy.settlesAfterResponse()) {
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
		if (this.tiers == null) {
			throw new IllegalStateException("A RateLimiter bean's judge is given keys, not requests");
		}
		if (observing()) {
			return Mono.deferContextual((request) -> judge(exchange, chain, next, request));
		}
		return judge(exchange, chain, next, null);
	}

	/**
	 * Whether the policies' decisions are observed now, asked per request: the registry
	 * observes nothing while it has no handler. An observed request's Reactor context is
	 * read first, its observation the parent of its decisions'.
	 */
	private boolean observing() {
		return this.observations != null && this.observations.active();
	}

	/**
	 * @param observed the request's Reactor context when its decisions are observed,
	 * otherwise {@code null}
	 */
	private <C> Mono<Void> judge(ServerWebExchange exchange, C chain, Next<C> next, @Nullable ContextView observed) {
		long start = MonotonicClock.SYSTEM.nanoTime();
		// Without configured API keys no header can name one: not read at all.
		String apiKey = this.tiersByApiKey.isEmpty() ? null
				: exchange.getRequest().getHeaders().getFirst(this.apiKeyHeader);
		String apiKeyTier = (apiKey != null) ? this.tiersByApiKey.get(apiKey) : null;
		Judging<C> judging = new Judging<>(exchange, chain, next, (apiKeyTier != null) ? apiKey : null, start,
				observed);
		if (this.tiers instanceof TierLookup.InRequest inRequest) {
			return withTier(judging, inRequest.read(exchange, apiKeyTier));
		}
		return ((TierLookup.Awaited) this.tiers).resolve(exchange, apiKeyTier)
			.onErrorResume(this::tierLookupFailed)
			.defaultIfEmpty(DEFAULT_TIER)
			.flatMap((tier) -> withTier(judging, (tier != DEFAULT_TIER) ? tier : null));
	}

	/**
	 * Then each policy's tier of that name, whether the policy judges the request (its
	 * method and path, its client not exempt), and each judging policy's cost and key. A
	 * request no policy judges goes on as it came.
	 */
	private <C> Mono<Void> withTier(Judging<C> judging, @Nullable String tierName) {
		boolean judged = false;
		for (int i = 0; i < this.policies.length; i++) {
			PolicyJudgement judgement = new PolicyJudgement(this.policies[i], this.policies[i].tier(tierName));
			if (this.policies[i].judges(judging.exchange, judging.knownApiKey, judgement.tier())) {
				judged = true;
			}
			else {
				judgement.pass();
			}
			judging.judgements[i] = judgement;
		}
		if (!judged) {
			return judging.next.proceed(judging.chain, judging.exchange);
		}
		return lookUp(judging, 0);
	}

	/**
	 * Each policy's cost and key, from the policy at {@code from} on; a request one of
	 * them refuses is refused before any decision.
	 */
	private <C> Mono<Void> lookUp(Judging<C> judging, int from) {
		for (int i = from; i < this.policies.length; i++) {
			PolicyJudgement judgement = judging.judgements[i];
			if (judgement.passes()) {
				continue;
			}
			Mono<Void> awaited = this.policies[i].lookUp(judging.exchange, judging.knownApiKey, judgement);
			if (awaited != null) {
				int next = i + 1;
				return awaited.then(Mono.defer(() -> (judgement.refusedBeforeDeciding() != null)
						? refuseBeforeDeciding(judging, judgement) : lookUp(judging, next)));
			}
			if (judgement.refusedBeforeDeciding() != null) {
				return refuseBeforeDeciding(judging, judgement);
			}
		}
		return decide(judging, 0);
	}

	/**
	 * Then each policy's decision, from the policy at {@code from} on, until one refuses.
	 * A policy whose key lookup failed has a verdict of no limit already. A request
	 * cancelled while a decision is awaited (its client gone) gives back what the
	 * policies before took; the awaited one gives back its own once it comes.
	 */
	private <C> Mono<Void> decide(Judging<C> judging, int from) {
		for (int i = from; i < this.policies.length; i++) {
			PolicyJudgement judgement = judging.judgements[i];
			if (judgement.passes()) {
				continue;
			}
			if (judgement.verdict() == null) {
				Observation observation = (judging.observed != null)
						? this.policies[i].observe(judgement, judging.observed) : null;
				Verdict now = this.policies[i].decideNow(judgement, observation);
				if (now == null) {
					int at = i;
					Mono<Verdict> later = this.policies[i].decideLater(judgement, observation,
							() -> abandoned(judging, at));
					return later.flatMap((verdict) -> {
						judgement.decided(verdict);
						return judgement.refuses() ? refused(judging, at) : decide(judging, at + 1);
					});
				}
				judgement.decided(now);
			}
			if (judgement.refuses()) {
				return refused(judging, i);
			}
		}
		return admitted(judging);
	}

	/**
	 * Every policy admitted the request: it goes on, at once or once held for the longest
	 * hold any asks.
	 */
	private <C> Mono<Void> admitted(Judging<C> judging) {
		long delayNanos = 0;
		for (PolicyJudgement judgement : judging.judgements) {
			if (judgement.holds()) {
				delayNanos = Math.max(delayNanos, judgement.verdict().delayNanos());
			}
		}
		if (delayNanos > 0) {
			long hold = delayNanos;
			// Deferred, so that a place is taken only by a request whose chain goes on.
			return Mono.defer(() -> {
				notifySlotsTaken(judging.judgements);
				if (!this.held.tryTake()) {
					return holdsFull(judging, hold);
				}
				concludeAdmitted(judging.judgements, judging.start, judging.exchange.getResponse().getHeaders());
				return this.held.hold(Mono.defer(() -> forward(judging, judging.exchange, 0, hold)), hold,
						() -> giveBackAll(judging.judgements));
			});
		}
		concludeAdmitted(judging.judgements, judging.start, judging.exchange.getResponse().getHeaders());
		notifySlotsTaken(judging.judgements);
		return forward(judging, judging.exchange, 0, 0);
	}

	/**
	 * The one place an admitted request leaves the judge for the rest of the chain
	 * (shadow rejections and a store failing open included): holding a request before it
	 * is forwarded (shaping) wraps this call, and settling its decisions once the
	 * exchange shows them (costs the upstream reports, counted responses, in-flight
	 * limits) happens here, each policy's settlement, from the policy at {@code from} on,
	 * wrapped around the next's. Only a decision that took something is settled.
	 * Everything else goes on as it came, with nothing allocated.
	 * @param heldNanos how long the request was held before going on
	 */
	private <C> Mono<Void> forward(Judging<C> judging, ServerWebExchange exchange, int from, long heldNanos) {
		for (int i = from; i < judging.judgements.length; i++) {
			PolicyJudgement judgement = judging.judgements[i];
			if (judgement.tier().plan() != null && judgement.took()) {
				int next = i + 1;
				ExchangeSettlement settlement = new ExchangeSettlement(judgement, judging, heldNanos,
						exchange.getResponse());
				if (next == judging.judgements.length) {
					return settlement.forward(exchange, judging.chain, judging.next);
				}
				return settlement.forward(exchange, judging,
						(settling, forwarded) -> forward(settling, forwarded, next, heldNanos));
			}
		}
		return judging.next.proceed(judging.chain, exchange);
	}

	/**
	 * A policy refused the request: what the policies before it took is given back, and
	 * the refusal answered.
	 * @param refusing the index of the policy that refused
	 */
	private <C> Mono<Void> refused(Judging<C> judging, int refusing) {
		if (refusing == 0) {
			return reject(judging, refusing);
		}
		Mono<Void> givenBack = Mono.empty();
		for (int i = 0; i < refusing; i++) {
			givenBack = givenBack.then(this.policies[i].giveBackRefused(judging.judgements[i]));
		}
		return givenBack.then(Mono.defer(() -> reject(judging, refusing)));
	}

	private <C> Mono<Void> reject(Judging<C> judging, int refusing) {
		PolicyJudgement judgement = judging.judgements[refusing];
		HttpHeaders headers = judging.exchange.getResponse().getHeaders();
		concludeRefused(judging.judgements, refusing, judging.start, headers);
		return this.rejectionHandler.reject(judging.exchange, judgement.policy().overLimit(judgement));
	}

	/**
	 * A request a limit would hold while this node holds as many as it may: every
	 * policy gives back what it took and reports it, and it is answered with 503, the
	 * node's limit rather than the client's quota (RFC 9110 section 15.6.4), with
	 * {@code Retry-After} (section 10.2.3). The refusal names the policy that holds
	 * longest.
	 */
	private <C> Mono<Void> holdsFull(Judging<C> judging, long delayNanos) {
		PolicyJudgement holding = null;
		for (PolicyJudgement judgement : judging.judgements) {
			if (judgement.passes()) {
				continue;
			}
			judgement.policy().giveBackLater(judgement);
			judgement.tier().listeners().notify(Outcome.HOLDS_FULL, MonotonicClock.SYSTEM.nanoTime() - judging.start);
			if (holding == null && judgement.holds() && judgement.verdict().delayNanos() == delayNanos) {
				holding = judgement;
			}
		}
		long retryAfter = HeldRelease.retryAfterWhenFull(delayNanos);
		judging.exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, HeaderNumbers.of(retryAfter));
		return this.rejectionHandler.reject(judging.exchange,
				holding.policy()
					.rejection(Reason.HOLDS_FULL, HttpStatus.SERVICE_UNAVAILABLE,
							"This gateway already holds as many requests as it may (" + this.held.max() + ")",
							retryAfter, List.of(), holding));
	}

	private <C> Mono<Void> refuseBeforeDeciding(Judging<C> judging, PolicyJudgement judgement) {
		return this.rejectionHandler.reject(judging.exchange,
				judgement.policy().refusedBeforeDeciding(judging.exchange, judgement));
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
		if (observing()) {
			return Mono.deferContextual((request) -> judge(key, answer, request));
		}
		return judge(key, answer, null);
	}

	/**
	 * @param observed the Reactor context of the bean's caller when the decision is
	 * observed, otherwise {@code null}
	 */
	private <R> Mono<R> judge(String key, Answer<R> answer, @Nullable ContextView observed) {
		long start = MonotonicClock.SYSTEM.nanoTime();
		PolicyJudge policy = this.policies[0];
		PolicyJudgement judgement = new PolicyJudgement(policy, policy.tier(this.tiersByApiKey.get(key)));
		if (policy.exemptsKey(key, judgement.tier())) {
			return Mono.just(answer.of(true, new HttpHeaders()));
		}
		judgement.cost(policy.cost());
		policy.withKey(judgement, key);
		Observation observation = (observed != null) ? policy.observe(judgement, observed) : null;
		Verdict now = policy.decideNow(judgement, observation);
		if (now != null) {
			judgement.decided(now);
			return answer(judgement, start, answer);
		}
		return policy.decideLater(judgement, observation, () -> {
		}).flatMap((verdict) -> {
			judgement.decided(verdict);
			return answer(judgement, start, answer);
		});
	}

	/**
	 * The bean's response, held as a filter holds its request: the bean's caller forwards
	 * the request when it gets the response.
	 */
	private <R> Mono<R> answer(PolicyJudgement judgement, long start, Answer<R> answer) {
		HttpHeaders headers = new HttpHeaders();
		PolicyJudgement[] judgements = { judgement };
		if (judgement.holds()) {
			long hold = judgement.verdict().delayNanos();
			// Deferred, so that a place is taken only by an answer awaited.
			return Mono.defer(() -> {
				if (!this.held.tryTake()) {
					judgement.policy().giveBackLater(judgement);
					judgement.tier().listeners().notify(Outcome.HOLDS_FULL, MonotonicClock.SYSTEM.nanoTime() - start);
					headers.set(HttpHeaders.RETRY_AFTER, HeaderNumbers.of(HeldRelease.retryAfterWhenFull(hold)));
					return Mono.just(answer.of(false, headers));
				}
				concludeAdmitted(judgements, start, headers);
				return this.held.hold(Mono.just(answer.of(true, headers)), hold,
						() -> judgement.policy().giveBackLater(judgement));
			});
		}
		if (judgement.refuses()) {
			concludeRefused(judgements, 0, start, headers);
			return Mono.just(answer.of(false, headers));
		}
		concludeAdmitted(judgements, start, headers);
		return Mono.just(answer.of(true, headers));
	}

	/**
	 * What every entry point does with a request its policies admitted: each policy
	 * tells its listeners what it decided, and the rate limit headers describe them all.
	 */
	private void concludeAdmitted(PolicyJudgement[] judgements, long start, HttpHeaders headers) {
		long decisionNanos = MonotonicClock.SYSTEM.nanoTime() - start;
		for (PolicyJudgement judgement : judgements) {
			if (!judgement.passes()) {
				judgement.policy().notifyDecided(judgement, decisionNanos);
			}
		}
		this.headers.write(headers, judgements, judgements.length);
	}

	/**
	 * What every entry point does with a request a policy refused: the refusing policy
	 * alone tells its listeners, the policies before it having given back what they took
	 * (so that each policy's allowed requests are those that went on); the rate limit
	 * headers describe the policies that decided, and {@code Retry-After} is written in
	 * delay-seconds (RFC 9110 section 10.2.3) like the headers' resets, so that both
	 * reference the same instant.
	 * @param refusing the index of the policy that refused
	 */
	private void concludeRefused(PolicyJudgement[] judgements, int refusing, long start, HttpHeaders headers) {
		PolicyJudgement judgement = judgements[refusing];
		judgement.policy().notifyDecided(judgement, MonotonicClock.SYSTEM.nanoTime() - start);
		this.headers.write(headers, judgements, refusing + 1);
		headers.set(HttpHeaders.RETRY_AFTER, HeaderNumbers.of(judgement.verdict().retryAfterSeconds()));
	}

	/**
	 * The policies before {@code awaited} give back what they took of a request no longer
	 * judged.
	 */
	private static void abandoned(Judging<?> judging, int awaited) {
		for (int i = 0; i < awaited; i++) {
			judging.judgements[i].policy().abandoned(judging.judgements[i]);
		}
	}

	private static void notifySlotsTaken(PolicyJudgement[] judgements) {
		for (PolicyJudgement judgement : judgements) {
			judgement.policy().notifySlotTaken(judgement);
		}
	}

	/**
	 * Every policy gives back what it took of a held request that never went on.
	 */
	private static void giveBackAll(PolicyJudgement[] judgements) {
		for (PolicyJudgement judgement : judgements) {
			judgement.policy().giveBackLater(judgement);
		}
	}

	/**
	 * A tier lookup that fails must not take requests down with it: they get the default
	 * tier.
	 */
	private Mono<String> tierLookupFailed(Throwable error) {
		lookupFailures.warn(() -> "Resolving the tier failed for policy '" + String.join(",", policyIds())
				+ "' on route '" + this.routeId + "'; judging the request under the default tier", error);
		return Mono.empty();
	}

	/**
	 * The ids of the route's policies, in the order it names them.
	 */
	public List<String> policyIds() {
		List<String> ids = new ArrayList<>(this.policies.length);
		for (PolicyJudge policy : this.policies) {
			ids.add(policy.policyId());
		}
		return ids;
	}

	/**
	 * The names of the stores of the route's policies, in the order it names them.
	 */
	public List<String> storeNames() {
		List<String> names = new ArrayList<>(this.policies.length);
		for (PolicyJudge policy : this.policies) {
			names.add(policy.storeName());
		}
		return names;
	}

	/**
	 * The name of the store of the judge's first policy: the one policy of a
	 * {@code RateLimiter} bean's judge.
	 */
	public String storeName() {
		return this.policies[0].storeName();
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
	 * One request being judged: what it goes on with, and what each policy made of it,
	 * in the route's order. The headers a settlement before the commit writes again
	 * describe every policy, the settled one as its store now describes it.
	 */
	private final class Judging<C> implements ExchangeSettlement.SettledHeaders {

		final ServerWebExchange exchange;

		final C chain;

		final Next<C> next;

		final @Nullable String knownApiKey;

		final long start;

		final PolicyJudgement[] judgements = new PolicyJudgement[RequestJudge.this.policies.length];

		/**
		 * The request's Reactor context when its decisions are observed, otherwise
		 * {@code null}.
		 */
		final @Nullable ContextView observed;

		Judging(ServerWebExchange exchange, C chain, Next<C> next, @Nullable String knownApiKey, long start,
				@Nullable ContextView observed) {
			this.exchange = exchange;
			this.chain = chain;
			this.next = next;
			this.knownApiKey = knownApiKey;
			this.start = start;
			this.observed = observed;
		}

		@Override
		public void write(HttpHeaders headers, PolicyJudgement settled, Verdict verdict) {
			if (verdict.limitCount() == 0) {
				return;
			}
			settled.describe(verdict);
			RequestJudge.this.headers.write(headers, this.judgements, this.judgements.length);
		}

	}

}
