package dev.ratelimit.web;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.policy.AfterResponse;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.RequestScope;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.policy.TierSource;
import dev.ratelimit.policy.TrustedProxies;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import reactor.core.publisher.Mono;

import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.server.ServerWebExchange;

/**
 * Builds one route's request path over policy {@code orders} (tiers {@code anonymous}:
 * 2 per minute, {@code pro}: 5 per minute, API key {@code pro-key} is pro), with a
 * frozen clock, and runs requests through it, recording what reached the chain.
 */
final class RequestPathFixture {

	static final URI TYPE = URI.create("https://iana.org/assignments/http-problem-types#quota-exceeded");

	static final Tier ANONYMOUS = new Tier("anonymous", List.of(new FixedWindow(2, Duration.ofMinutes(1))),
			List.of("orders-per-minute"));

	static final Tier PRO = new Tier("pro", List.of(new FixedWindow(5, Duration.ofMinutes(1))));

	final List<ServerWebExchange> forwarded = new ArrayList<>();

	final List<Outcome> outcomes = new ArrayList<>();

	/**
	 * Told of every decision after the one recording {@link #outcomes}.
	 */
	final List<RateLimitListener> listeners = new ArrayList<>();

	BucketDecider store = new CaffeineBucketStore(() -> 0L, 1000);

	KeySource key = new KeySource.ClientIp();

	OnMissingKey onMissingKey = OnMissingKey.CLIENT_ADDRESS;

	String costHeader;

	TierSource tierSource = new TierSource.ApiKey();

	RateLimitRejectionHandler rejectionHandler = problemWriter();

	TierResolver tierResolver;

	CostResolver costResolver;

	RequestScope scope = RequestScope.EVERY_REQUEST;

	TrustedProxies trustedProxies = TrustedProxies.NONE;

	static RateLimitProblemWriter problemWriter() {
		return new RateLimitProblemWriter(ServerCodecConfigurer.create().getWriters(), TYPE);
	}

	RateLimitPolicy policy() {
		return new RateLimitPolicy("orders", this.key, false, 1, StoreType.CAFFEINE,
				Map.of("anonymous", ANONYMOUS, "pro", PRO), ANONYMOUS, this.onMissingKey, 403, this.costHeader,
				AfterResponse.NONE, this.scope);
	}

	RequestJudge judge() {
		RateLimitPolicies policies = new RateLimitPolicies(Map.of("orders", policy()),
				Map.of("pro-key", "pro"), this.trustedProxies, this.tierSource);
		List<RateLimitListener> listeners = new ArrayList<>(List.of(this::record));
		listeners.addAll(this.listeners);
		return new RequestJudges(policies, new BucketStores(List.of(this.store), List.of()), listeners,
				HeaderStyle.DRAFT_06, "X-API-Key", this.rejectionHandler, this.tierResolver,
				this.costResolver, RateLimitMessages.DEFAULTS, new HeldRequests(10_000))
			.forRoute(policies, policies.policy("orders"), "orders-route", null);
	}

	/**
	 * Run one request through a new judge of the current settings.
	 */
	MockServerWebExchange run(MockServerHttpRequest.BaseBuilder<?> request) {
		return run(judge(), MockServerWebExchange.from(request));
	}

	<E extends ServerWebExchange> E run(RequestJudge judge, E exchange) {
		judge.judge(exchange, this.forwarded, (forwarded, chained) -> {
			forwarded.add(chained);
			return Mono.empty();
		}).block(Duration.ofSeconds(10));
		return exchange;
	}

	static MockServerHttpRequest.BaseBuilder<?> get() {
		return MockServerHttpRequest.get("/orders").remoteAddress(new InetSocketAddress("198.51.100.4", 40000));
	}

	/**
	 * The judge of a {@code RateLimiter} bean of the current settings, given keys.
	 */
	RequestJudge keysJudge() {
		RateLimitPolicies policies = new RateLimitPolicies(Map.of("orders", policy()), Map.of("pro-key", "pro"),
				this.trustedProxies, this.tierSource);
		return new RequestJudges(policies, new BucketStores(List.of(this.store), List.of()), List.of(this::record),
				HeaderStyle.DRAFT_06, "X-API-Key", this.rejectionHandler, null, null, RateLimitMessages.DEFAULTS,
				new HeldRequests(10_000))
			.forKeys(policies, policies.policy("orders"), "orders-route");
	}

	private void record(String policy, String tier, String route, String store, Outcome outcome, long nanos) {
		this.outcomes.add(outcome);
	}

}
