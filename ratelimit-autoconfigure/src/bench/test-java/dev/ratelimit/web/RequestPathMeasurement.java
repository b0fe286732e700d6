package dev.ratelimit.web;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

import dev.ratelimit.actuate.RateLimitTotals;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.metrics.RateLimitDecisionMeterObservationHandler;
import dev.ratelimit.metrics.RateLimitRequestMetrics;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.policy.TierSource;
import dev.ratelimit.policy.TrustedProxies;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.support.MonotonicClock;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import reactor.core.publisher.Mono;

import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.http.support.Netty4HeadersAdapter;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.server.ServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Measures what one admitted request costs the request path, in bytes allocated and
 * nanoseconds on this thread, when it is judged in line (nothing but API keys, the key
 * in the request, the Caffeine store) for one client and for 200,000 clients in random
 * order (every bucket created beforehand, as in the end-to-end benchmark), and when a
 * token claim or a {@link CostResolver} makes it wait on Reactor; prints the numbers
 * {@code docs/benchmarks.md} quotes. As in a gateway with Actuator, the decisions are
 * recorded as metrics and totals, and the headers are written on Netty's headers, as on
 * Reactor Netty. Every request sets its client's header first, one client or many, so
 * that both pay the same for it. The in-line path is measured again with its decisions
 * observed ({@code ratelimit.policy.decisions}) in an {@link ObservationRegistry} whose
 * one handler records them as timers, as Spring Boot's does with Actuator and no tracer,
 * and with that registry's predicate turning them off, as
 * {@code management.observations.enable.ratelimit=false} does.
 * Asserts behaviour only, never time. Run it with
 * {@code ./mvnw -B -q -Pbench -pl ratelimit-autoconfigure test-compile exec:exec@request-path}.
 */
public final class RequestPathMeasurement {

	private static final int WARM_UP = 300_000;

	private static final int REQUESTS = 2_000_000;

	private static final int MANY_CLIENTS = 200_000;

	private static final Tier TIER = new Tier("anonymous",
			List.of(new TokenBucket(100_000_000_000L, 1, Duration.ofSeconds(1))));

	private RequestPathMeasurement() {
	}

	public static void main(String[] arguments) {
		String[] oneClient = { "client-1" };
		ObservationRegistry none = ObservationRegistry.NOOP;
		measure("in line (api-key tiers, header key, caffeine)", new TierSource.ApiKey(), null, oneClient, none);
		measure("in line, decisions observed (meter handler)", new TierSource.ApiKey(), null, oneClient,
				observed(true, false));
		measure("in line, decisions observed (the starter's handler)", new TierSource.ApiKey(), null, oneClient,
				observed(true, true));
		measure("in line, observations turned off by predicate", new TierSource.ApiKey(), null, oneClient,
				observed(false, true));
		measure("in line, 200,000 clients in random order", new TierSource.ApiKey(), null, manyClients(), none);
		measure("token claim (reactive tier)", new TierSource.Claim("plan"), null, oneClient, none);
		measure("CostResolver bean (reactive cost)", new TierSource.ApiKey(), (exchange, policy) -> Mono.empty(),
				oneClient, none);
	}

	/**
	 * A registry recording observations as timers, as Spring Boot's does with Actuator
	 * and no tracer: Micrometer's default meter handler, after the starter's handler of
	 * decisions when {@code startersHandler} (Spring Boot's first-matching group of
	 * meter handlers, as the starter's auto-configuration sets it up); with
	 * {@code ratelimit} observations turned off by its predicate unless {@code enabled}.
	 */
	private static ObservationRegistry observed(boolean enabled, boolean startersHandler) {
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		ObservationHandler<Observation.Context> byDefault = new DefaultMeterObservationHandler(meters);
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig()
			.observationHandler(startersHandler ? new ObservationHandler.FirstMatchingCompositeObservationHandler(
					new RateLimitDecisionMeterObservationHandler(meters), byDefault) : byDefault)
			.observationPredicate((name, context) -> enabled || !name.startsWith("ratelimit"));
		return registry;
	}

	/**
	 * The clients of the end-to-end benchmark's many-keys workload, in a random order
	 * (seeded) that visits each of them once per pass.
	 */
	private static String[] manyClients() {
		List<String> clients = new ArrayList<>(MANY_CLIENTS);
		for (int i = 1; i <= MANY_CLIENTS; i++) {
			clients.add("client-" + i);
		}
		Collections.shuffle(clients, new Random(42));
		return clients.toArray(String[]::new);
	}

	private static void measure(String name, TierSource tierSource, CostResolver costResolver, String[] clients,
			ObservationRegistry observations) {
		RateLimitPolicy policy = new RateLimitPolicy("orders", new KeySource.Header("X-Client"), false, 1,
				StoreType.CAFFEINE, Map.of("anonymous", TIER), TIER, OnMissingKey.CLIENT_ADDRESS, 403, null);
		RateLimitPolicies policies = new RateLimitPolicies(Map.of("orders", policy), Map.of(), TrustedProxies.NONE,
				tierSource);
		RequestJudge judge = new RequestJudges(() -> policies,
				new BucketStores(List.of(new CaffeineBucketStore(() -> 0L, 1_000_000)), List.of()),
				List.of(new RateLimitRequestMetrics(new SimpleMeterRegistry()), new RateLimitTotals()),
				HeaderStyle.DRAFT_06, "X-API-Key", RequestPathFixture.problemWriter(), null, costResolver,
				RateLimitMessages.DEFAULTS, new HeldRequests(10_000), null, MonotonicClock.SYSTEM, observations, null)
			.forRoute(policies, policy, "orders", null);
		MockServerWebExchange mock = MockServerWebExchange
			.from(MockServerHttpRequest.get("/orders").header("X-Client", "client-1"));
		NettyHeadersRequest request = new NettyHeadersRequest(mock.getRequest());
		ServerWebExchange exchange = mock.mutate()
			.request(request)
			.response(new NettyHeadersResponse(mock.getResponse()))
			.build();
		Mono<Void> forwarded = Mono.empty();
		RequestJudge.Next<Object> next = (chain, chained) -> forwarded;
		run(judge, exchange, next, request, clients, Math.max(WARM_UP, 2 * clients.length));
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory
			.getThreadMXBean();
		long bytesBefore = threads.getCurrentThreadAllocatedBytes();
		long start = System.nanoTime();
		run(judge, exchange, next, request, clients, REQUESTS);
		long nanos = System.nanoTime() - start;
		long bytes = threads.getCurrentThreadAllocatedBytes() - bytesBefore;
		assertThat(mock.getResponse().getStatusCode()).isNull();
		assertThat(exchange.getResponse().getHeaders().getFirst("RateLimit-Limit")).isNotNull();
		System.out.printf("%-50s %6d bytes/request %7.1f ns/request%n", name, bytes / REQUESTS,
				(double) nanos / REQUESTS);
	}

	private static void run(RequestJudge judge, ServerWebExchange exchange, RequestJudge.Next<Object> next,
			NettyHeadersRequest request, String[] clients, int requests) {
		for (int i = 0; i < requests; i++) {
			request.client(clients[i % clients.length]);
			judge.judge(exchange, null, next).subscribe();
		}
	}

	/**
	 * A request whose headers are Netty's, seen through Spring's adapter, as Reactor
	 * Netty's request headers are.
	 */
	private static final class NettyHeadersRequest extends ServerHttpRequestDecorator {

		private final io.netty.handler.codec.http.HttpHeaders netty = DefaultHttpHeadersFactory.headersFactory()
			.newHeaders();

		private final HttpHeaders headers = new HttpHeaders(new Netty4HeadersAdapter(this.netty));

		NettyHeadersRequest(ServerHttpRequest delegate) {
			super(delegate);
			delegate.getHeaders().forEach((name, values) -> this.netty.add(name, values));
		}

		void client(String client) {
			this.netty.set("X-Client", client);
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

	}

	/**
	 * A response whose headers are Netty's, seen through Spring's adapter, as Reactor
	 * Netty's response headers are.
	 */
	private static final class NettyHeadersResponse extends ServerHttpResponseDecorator {

		private final HttpHeaders headers = new HttpHeaders(
				new Netty4HeadersAdapter(DefaultHttpHeadersFactory.headersFactory().newHeaders()));

		NettyHeadersResponse(ServerHttpResponse delegate) {
			super(delegate);
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

	}

}
