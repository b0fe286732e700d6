package dev.ratelimit.web;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import dev.ratelimit.policy.AfterResponse;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * Policy {@code llm} (one tier, keyed by the {@code X-Client} header, cost 10 unless a
 * test says otherwise) on the Caffeine store, on a clock that never moves (half way
 * through a minute window), through a {@link RecordingStore}, as the plain WebFlux
 * filter serves it on route {@code llm-route} in front of a router function, or as its
 * judge alone in front of an upstream {@code Mono} a test controls. Records what the
 * listeners are told of settlements.
 */
final class SettlementFixture {

	static final String CLIENT = "tenant-a";

	/**
	 * Half way through a minute window of the clock's timeline: a settlement places the
	 * units it gives back by the time elapsed since admission on the system's clock,
	 * which moves, so they were counted in this window.
	 */
	private static final long NOW = 630_000_000_000L;

	final RecordingStore store = new RecordingStore(new CaffeineBucketStore(() -> NOW, 1000));

	/**
	 * What the listeners were told of settlements, in order: {@code charged:N},
	 * {@code refunded:N}, {@code unreadable:REASON}, {@code taken}, {@code released}.
	 */
	final List<String> settled = new CopyOnWriteArrayList<>();

	private final Tier tier;

	private final AfterResponse afterResponse;

	long cost = 10;

	boolean shadow;

	@Nullable ResponseCostResolver resolver;

	SettlementFixture(Tier tier, AfterResponse afterResponse) {
		this.tier = tier;
		this.afterResponse = afterResponse;
	}

	RateLimitPolicy policy() {
		return new RateLimitPolicy("llm", new KeySource.Header("X-Client"), this.shadow, this.cost,
				StoreType.CAFFEINE, Map.of(this.tier.name(), this.tier), this.tier, OnMissingKey.CLIENT_ADDRESS, 403,
				null, this.afterResponse);
	}

	/**
	 * The units the client's window limit counts.
	 */
	long used() {
		return state("count");
	}

	/**
	 * The client's requests in flight, as its concurrency limit counts them.
	 */
	long inFlight() {
		return state("inFlight");
	}

	private long state(String name) {
		BucketSnapshot snapshot = this.store.caffeine.bucket(policy(), CLIENT).blockFirst();
		return snapshot.limits()
			.stream()
			.filter((limit) -> limit.state().containsKey(name))
			.findFirst()
			.orElseThrow()
			.state()
			.get(name)
			.longValue();
	}

	RequestJudges judges() {
		RateLimitPolicies policies = new RateLimitPolicies(Map.of("llm", policy()), Map.of());
		return new RequestJudges(() -> policies, new BucketStores(List.of(this.store), List.of()),
				List.of(new Recorder()), HeaderStyle.DRAFT_06, "X-API-Key",
				new RateLimitProblemWriter(ServerCodecConfigurer.create().getWriters(),
						URI.create("https://iana.org/assignments/http-problem-types#quota-exceeded")),
				null, null, RateLimitMessages.DEFAULTS, new HeldRequests(100), this.resolver);
	}

	RequestJudge filterJudge() {
		RequestJudges judges = judges();
		RateLimitPolicies policies = judges.policies();
		return judges.forRoute(policies, policies.policy("llm"), "llm-route", null);
	}

	/**
	 * A client of {@code routes} behind the filter, as a WebFlux application serves them.
	 */
	WebTestClient client(RouterFunction<ServerResponse> routes) {
		RequestJudges judges = judges();
		RateLimitWebFilter filter = new RateLimitWebFilter(judges, List.of(new RateLimitWebFilter.Route("llm-route",
				List.of(PathPatternParser.defaultInstance.parse("/**")), Set.of(), judges.policies().policy("llm"))),
				null, 0);
		return WebTestClient.bindToRouterFunction(routes).webFilter(filter).configureClient().build();
	}

	/**
	 * Send a request through the judge alone, the rest of the chain being
	 * {@code upstream} of the forwarded exchange.
	 */
	Sent send(RequestJudge judge, Function<ServerWebExchange, Mono<Void>> upstream) {
		MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/chat")
			.header("X-Client", CLIENT)
			.remoteAddress(new InetSocketAddress("198.51.100.4", 40000)));
		Sent sent = new Sent(exchange);
		sent.subscription = judge.judge(exchange, sent, (chain, forwarded) -> {
			chain.forwarded.set(true);
			chain.forwardedExchange = forwarded;
			return upstream.apply(forwarded);
		}).subscribe(null, (error) -> sent.failed.set(true), () -> sent.completed.set(true));
		return sent;
	}

	static final class Sent {

		final MockServerWebExchange exchange;

		final AtomicBoolean forwarded = new AtomicBoolean();

		final AtomicBoolean completed = new AtomicBoolean();

		final AtomicBoolean failed = new AtomicBoolean();

		@Nullable ServerWebExchange forwardedExchange;

		Disposable subscription;

		Sent(MockServerWebExchange exchange) {
			this.exchange = exchange;
		}

	}

	private final class Recorder implements RateLimitListener {

		@Override
		public void onDecision(String policy, String tier, String routeId, String store, Outcome outcome,
				long decisionNanos) {
		}

		@Override
		public void onCharged(String policy, String tier, String routeId, String store, long units) {
			SettlementFixture.this.settled.add("charged:" + units);
		}

		@Override
		public void onRefunded(String policy, String tier, String routeId, String store, long units) {
			SettlementFixture.this.settled.add("refunded:" + units);
		}

		@Override
		public void onUnreadableCost(String policy, String tier, String routeId, String store, String reason) {
			SettlementFixture.this.settled.add("unreadable:" + reason);
		}

		@Override
		public void onSlotTaken(String policy, String tier, String routeId, String store) {
			SettlementFixture.this.settled.add("taken");
		}

		@Override
		public void onSlotReleased(String policy, String tier, String routeId, String store) {
			SettlementFixture.this.settled.add("released");
		}

	}

}
