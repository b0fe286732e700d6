package dev.ratelimit.web;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.KeySource;
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
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

import org.springframework.http.HttpHeaders;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;

/**
 * One route of policy {@code payments} (key: the client's address, one tier) on a
 * Caffeine store, judged while Reactor's timers run on virtual time: time moves only
 * when the test {@linkplain #advance advances} it, the store's clock and the timers'
 * together, so a held request is released at an instant the test reads. Records the
 * listeners' outcomes and delays, the instants requests were forwarded at, and the
 * places given back.
 */
final class ShapingFixture {

	static final URI TYPE = URI.create("https://iana.org/assignments/http-problem-types#quota-exceeded");

	final ManualClock clock = new ManualClock();

	final VirtualTimeScheduler time;

	final CaffeineBucketStore caffeine = new CaffeineBucketStore(this.clock, 1000);

	final GiveBackCounter store = new GiveBackCounter(this.caffeine);

	final HeldRequests held;

	final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

	final List<Long> delays = new CopyOnWriteArrayList<>();

	/**
	 * What the rest of the chain does with a forwarded request: answers at once unless a
	 * test keeps it in flight ({@code Mono.never()}).
	 */
	Mono<Void> upstream = Mono.empty();

	private final Tier tier;

	private final boolean shadow;

	private final long cost;

	/**
	 * @param time the virtual time installed for Reactor's timers
	 * @param tier the policy's one tier, also its default
	 * @param shadow whether the policy only counts and reports
	 * @param cost what one request costs
	 * @param maxHeld this node's places for held requests
	 */
	ShapingFixture(VirtualTimeScheduler time, Tier tier, boolean shadow, long cost, int maxHeld) {
		this.time = time;
		this.tier = tier;
		this.shadow = shadow;
		this.cost = cost;
		this.held = new HeldRequests(maxHeld);
	}

	/**
	 * Move the store's clock and the timers' virtual time together, releasing the
	 * requests whose delay has passed.
	 */
	void advance(Duration duration) {
		this.clock.advance(duration);
		this.time.advanceTimeBy(duration);
	}

	/**
	 * Now, on the timers' virtual time, from 0.
	 */
	long now() {
		return this.time.now(TimeUnit.NANOSECONDS);
	}

	RateLimitPolicy policy() {
		return new RateLimitPolicy("payments", new KeySource.ClientIp(), this.shadow, this.cost, StoreType.CAFFEINE,
				Map.of(this.tier.name(), this.tier), this.tier);
	}

	/**
	 * The judge of the policy's {@code RateLimit} filter on route {@code payments-route}.
	 */
	RequestJudge filterJudge() {
		RateLimitPolicies policies = policies();
		return judges(policies).forRoute(policies, policies.policy("payments"), "payments-route", null);
	}

	/**
	 * The judge of the policy's {@code RateLimiter} bean.
	 */
	RequestJudge keysJudge() {
		RateLimitPolicies policies = policies();
		return judges(policies).forKeys(policies, policies.policy("payments"), "payments-route");
	}

	/**
	 * Send a request from {@code client}'s address through a filter's judge; the chain
	 * records the virtual instant it is forwarded at.
	 */
	Sent send(RequestJudge judge, String client) {
		MockServerWebExchange exchange = MockServerWebExchange
			.from(MockServerHttpRequest.get("/payments").remoteAddress(new InetSocketAddress(client, 40000)));
		Sent sent = new Sent(exchange);
		sent.subscription = judge.judge(exchange, sent, (chain, chained) -> {
			chain.forwardedAt = now();
			return this.upstream;
		}).subscribe(null, null, () -> sent.completed.set(true));
		return sent;
	}

	/**
	 * Ask the {@code RateLimiter} bean's judge about {@code key}; the answer records the
	 * virtual instant it came at.
	 */
	Asked ask(RequestJudge judge, String key) {
		Asked asked = new Asked();
		asked.subscription = judge.judge(key, (allowed, headers) -> {
			asked.allowed = allowed;
			asked.headers = headers;
			return allowed;
		}).subscribe((allowed) -> asked.answeredAt = now());
		return asked;
	}

	/**
	 * The state of {@code key}'s bucket's first limit (a leaky bucket's {@code level}, a
	 * token bucket's {@code tokens}) on the store's clock now.
	 */
	Map<String, Number> state(String key) {
		return state(key, 0);
	}

	/**
	 * The state of one limit of {@code key}'s bucket, by its place in the tier.
	 */
	Map<String, Number> state(String key, int limit) {
		List<BucketSnapshot> buckets = this.caffeine.bucket(policy(), key).collectList().block();
		if (buckets == null || buckets.size() != 1) {
			throw new AssertionError("expected one bucket for " + key + " but found " + buckets);
		}
		return buckets.get(0).limits().get(limit).state();
	}

	private RateLimitPolicies policies() {
		return new RateLimitPolicies(Map.of("payments", policy()), Map.of());
	}

	private RequestJudges judges(RateLimitPolicies policies) {
		List<RateLimitListener> listeners = List.of(new RateLimitListener() {

			@Override
			public void onDecision(String policy, String tier, String routeId, String store, Outcome outcome,
					long decisionNanos) {
				ShapingFixture.this.outcomes.add(outcome);
			}

			@Override
			public void onDelayed(String policy, String tier, String routeId, String store, Outcome outcome,
					long decisionNanos, long delayNanos) {
				ShapingFixture.this.outcomes.add(outcome);
				ShapingFixture.this.delays.add(delayNanos);
			}

		});
		return new RequestJudges(policies, new BucketStores(List.of(this.store), List.of(this.caffeine)), listeners,
				HeaderStyle.DRAFT_06, "X-API-Key",
				new RateLimitProblemWriter(ServerCodecConfigurer.create().getWriters(), TYPE), null, null,
				RateLimitMessages.DEFAULTS, this.held);
	}

	/**
	 * A request sent through a filter's judge: the response it got, whether the judge's
	 * work completed, and when it was forwarded, if it was.
	 */
	static final class Sent {

		final MockServerWebExchange exchange;

		final AtomicBoolean completed = new AtomicBoolean();

		@Nullable Long forwardedAt;

		Disposable subscription;

		Sent(MockServerWebExchange exchange) {
			this.exchange = exchange;
		}

		boolean forwarded() {
			return this.forwardedAt != null;
		}

		HttpHeaders headers() {
			return this.exchange.getResponse().getHeaders();
		}

	}

	/**
	 * A key the {@code RateLimiter} bean's judge was asked about: its answer, once it came.
	 */
	static final class Asked {

		@Nullable Boolean allowed;

		@Nullable HttpHeaders headers;

		@Nullable Long answeredAt;

		Disposable subscription;

	}

	/**
	 * The Caffeine store, counting the places given back.
	 */
	static final class GiveBackCounter implements BucketDecider {

		private final CaffeineBucketStore store;

		final AtomicInteger givenBack = new AtomicInteger();

		GiveBackCounter(CaffeineBucketStore store) {
			this.store = store;
		}

		@Override
		public String name() {
			return this.store.name();
		}

		@Override
		public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
			return this.store.acquire(id, tier, cost);
		}

		@Override
		public Verdict acquireNow(BucketId id, Tier tier, long cost) {
			return this.store.acquireNow(id, tier, cost);
		}

		@Override
		public Mono<Verdict> settle(BucketId id, Tier tier, Settlement settlement) {
			return this.store.settle(id, tier, settlement)
				.doOnSuccess((done) -> this.givenBack.incrementAndGet());
		}

	}

}
