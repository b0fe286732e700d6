package dev.ratelimit.web;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.AfterResponse;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.support.ManualClock;
import io.micrometer.observation.ObservationRegistry;
import reactor.core.Disposable;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

import org.springframework.http.HttpHeaders;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * One route judging several policies together, on route {@code both}, keyed by the
 * client's address: policies on the Caffeine store, which decides at once, and on a
 * store named {@code redis} that only decides when awaited ({@link AwaitedStore}, over
 * Caffeine buckets of its own), both on one clock that never moves unless a test moves
 * it, half way through a minute window, which the judges measure the age of decisions
 * by. Records what each policy tells its listeners and what reached the upstream.
 */
final class SeveralPoliciesFixture {

	static final URI TYPE = URI.create("https://iana.org/assignments/http-problem-types#quota-exceeded");

	static final String ROUTE = "both";

	final ManualClock clock = new ManualClock();

	final CaffeineBucketStore caffeine = new CaffeineBucketStore(this.clock, 1000);

	final CaffeineBucketStore remoteBuckets = new CaffeineBucketStore(this.clock, 1000);

	final AwaitedStore remote = new AwaitedStore(this.remoteBuckets);

	/**
	 * What the policies told their listeners, in order: {@code <policy> <outcome>},
	 * {@code <policy> charged:N}, {@code refunded:N}, {@code taken}, {@code released}.
	 */
	final List<String> told = new CopyOnWriteArrayList<>();

	/**
	 * Every refusal the rejection handler answered.
	 */
	final List<RateLimitRejection> rejections = new CopyOnWriteArrayList<>();

	HeaderStyle style = HeaderStyle.DRAFT_11;

	HeldRequests held = new HeldRequests(100);

	/**
	 * Where the judges observe their policies' decisions.
	 */
	ObservationRegistry observations = ObservationRegistry.NOOP;

	/**
	 * What the rest of the chain does with a forwarded request: answers at once unless a
	 * test keeps it in flight ({@code Mono.never()}).
	 */
	Mono<Void> upstream = Mono.empty();

	SeveralPoliciesFixture() {
		this.clock.advanceToMultipleOf(Duration.ofMinutes(1));
		this.clock.advance(Duration.ofSeconds(30));
	}

	static RateLimitPolicy policy(String id, StoreType store, Tier tier) {
		return policy(id, store, tier, AfterResponse.NONE);
	}

	/**
	 * A policy of one quota for every client of the route.
	 */
	static RateLimitPolicy shared(String id, StoreType store, Tier tier) {
		return new RateLimitPolicy(id, new KeySource.Route(), false, 1, store, Map.of(tier.name(), tier), tier);
	}

	static RateLimitPolicy policy(String id, StoreType store, Tier tier, AfterResponse afterResponse) {
		return new RateLimitPolicy(id, new KeySource.ClientIp(), false, 1, store, Map.of(tier.name(), tier), tier,
				OnMissingKey.CLIENT_ADDRESS, 403, null, afterResponse);
	}

	RequestJudges judges(RateLimitPolicy... policies) {
		Map<String, RateLimitPolicy> byId = new HashMap<>();
		for (RateLimitPolicy policy : policies) {
			byId.put(policy.id(), policy);
		}
		RateLimitPolicies all = new RateLimitPolicies(byId, Map.of());
		RateLimitRejectionHandler problems = new RateLimitProblemWriter(ServerCodecConfigurer.create().getWriters(),
				TYPE);
		return new RequestJudges(() -> all, new BucketStores(List.of(this.caffeine, this.remote), List.of()),
				List.of(new Recorder()), this.style, "X-API-Key", (exchange, rejection) -> {
					this.rejections.add(rejection);
					return problems.reject(exchange, rejection);
				}, null, null, RateLimitMessages.DEFAULTS, this.held, null, this.clock, this.observations, null);
	}

	/**
	 * The judge of the route naming {@code policies}, in this order.
	 */
	RequestJudge judge(RateLimitPolicy... policies) {
		RequestJudges judges = judges(policies);
		return judges.forRoute(judges.policies(), Arrays.asList(policies), ROUTE, null);
	}

	/**
	 * A client of {@code routes} behind the plain WebFlux filter of a route naming
	 * {@code policies}, as an application serves them.
	 */
	WebTestClient client(RouterFunction<ServerResponse> routes, RateLimitPolicy... policies) {
		RequestJudges judges = judges(policies);
		RateLimitWebFilter filter = new RateLimitWebFilter(judges, List.of(new RateLimitWebFilter.Route(ROUTE,
				List.of(PathPatternParser.defaultInstance.parse("/**")), Set.of(), Arrays.asList(policies))), null, 0);
		return WebTestClient.bindToRouterFunction(routes).webFilter(filter).configureClient().build();
	}

	/**
	 * Send a request from {@code client}'s address through the judge; the chain records
	 * that it reached the upstream.
	 */
	Sent send(RequestJudge judge, String client) {
		return send(judge, client, Context.empty());
	}

	/**
	 * Send a request as {@link #send(RequestJudge, String)} does, in a filter chain
	 * whose Reactor context is {@code context}.
	 */
	Sent send(RequestJudge judge, String client, ContextView context) {
		MockServerWebExchange exchange = MockServerWebExchange
			.from(MockServerHttpRequest.get("/both").remoteAddress(new InetSocketAddress(client, 40000)));
		Sent sent = new Sent(exchange);
		sent.subscription = judge.judge(exchange, sent, (chain, forwarded) -> {
			chain.forwarded.set(true);
			return this.upstream;
		}).contextWrite(context).subscribe(null, null, () -> sent.completed.set(true));
		return sent;
	}

	/**
	 * The state of every limit of {@code client}'s bucket under {@code policy}, from the
	 * store the policy is on; empty when there is no such bucket.
	 */
	List<Map<String, Number>> state(RateLimitPolicy policy, String client) {
		CaffeineBucketStore store = (policy.store() == StoreType.CAFFEINE) ? this.caffeine : this.remoteBuckets;
		List<Map<String, Number>> limits = new ArrayList<>();
		for (BucketSnapshot bucket : store.bucket(policy, client).collectList().block()) {
			bucket.limits().forEach((limit) -> limits.add(limit.state()));
		}
		return limits;
	}

	/**
	 * A request sent through the judge: its exchange, whether it reached the upstream,
	 * whether the judge's work completed.
	 */
	static final class Sent {

		final MockServerWebExchange exchange;

		final AtomicBoolean forwarded = new AtomicBoolean();

		final AtomicBoolean completed = new AtomicBoolean();

		Disposable subscription;

		Sent(MockServerWebExchange exchange) {
			this.exchange = exchange;
		}

		HttpHeaders headers() {
			return this.exchange.getResponse().getHeaders();
		}

		int status() {
			return this.exchange.getResponse().getStatusCode().value();
		}

	}

	/**
	 * A store named {@code redis} that never decides at once: every decision is awaited,
	 * as a remote store's is, from Caffeine buckets of its own.
	 */
	static final class AwaitedStore implements BucketDecider {

		private final CaffeineBucketStore buckets;

		/**
		 * What it was asked to settle, in order.
		 */
		final List<Settlement> settlements = new CopyOnWriteArrayList<>();

		/**
		 * When set, a decision is applied when asked for, as a remote store applies a
		 * command it was sent, and answered once this completes.
		 */
		@Nullable Mono<Void> answerWhen;

		AwaitedStore(CaffeineBucketStore buckets) {
			this.buckets = buckets;
		}

		@Override
		public String name() {
			return StoreType.REDIS.storeName();
		}

		@Override
		public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
			return answered(Mono.defer(() -> this.buckets.acquire(id, tier, cost)));
		}

		private Mono<Verdict> answered(Mono<Verdict> decision) {
			Mono<Void> answer = this.answerWhen;
			return (answer != null) ? decision.delayUntil((verdict) -> answer) : decision;
		}

		@Override
		public Mono<Verdict> check(BucketId id, Tier tier, long cost) {
			return answered(Mono.defer(() -> this.buckets.check(id, tier, cost)));
		}

		@Override
		public Mono<Verdict> settle(BucketId id, Tier tier, Settlement settlement) {
			this.settlements.add(settlement);
			return this.buckets.settle(id, tier, settlement);
		}

	}

	private final class Recorder implements RateLimitListener {

		@Override
		public void onDecision(String policy, String tier, String routeId, String store, Outcome outcome,
				long decisionNanos) {
			SeveralPoliciesFixture.this.told.add(policy + " " + outcome.tagValue());
		}

		@Override
		public void onCharged(String policy, String tier, String routeId, String store, long units) {
			SeveralPoliciesFixture.this.told.add(policy + " charged:" + units);
		}

		@Override
		public void onRefunded(String policy, String tier, String routeId, String store, long units) {
			SeveralPoliciesFixture.this.told.add(policy + " refunded:" + units);
		}

		@Override
		public void onSlotTaken(String policy, String tier, String routeId, String store) {
			SeveralPoliciesFixture.this.told.add(policy + " taken");
		}

		@Override
		public void onSlotReleased(String policy, String tier, String routeId, String store) {
			SeveralPoliciesFixture.this.told.add(policy + " released");
		}

	}

}
