package dev.ratelimit.gateway;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.testsupport.ScriptedStore;
import dev.ratelimit.web.HeaderStyle;
import dev.ratelimit.web.Outcome;
import dev.ratelimit.web.RateLimitListener;
import dev.ratelimit.web.RateLimitMessages;
import dev.ratelimit.web.RateLimitProblemWriter;
import dev.ratelimit.web.HeldRequests;
import dev.ratelimit.web.RequestJudges;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.http.HttpStatus;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The filter's handling of what a store answers, with a store scripted by each test.
 */
class RateLimitGatewayFilterTests {

	private static final Tier TIER = new Tier("anonymous", List.of(new FixedWindow(10, Duration.ofMinutes(1))));

	private static final URI TYPE = URI.create("https://iana.org/assignments/http-problem-types#quota-exceeded");

	private final ScriptedStore store = new ScriptedStore();

	private final List<Outcome> outcomes = new ArrayList<>();

	private final AtomicInteger chainCalls = new AtomicInteger();

	private final StaticListableBeanFactory beans = new StaticListableBeanFactory();

	@Test
	void anAllowedVerdictWritesHeadersAndCallsTheChain() {
		this.store.answer(() -> Mono.just(Verdict.of(new Decision(true, 9, 10, 60_000_000_000L, 0))));
		assertAllowedWithHeaders(run(new KeySource.ClientIp()));
	}

	@Test
	void theApiKeyChoosesTheTierAndUnknownKeysFallBackToTheDefaultTierByIp() {
		Tier pro = new Tier("pro", List.of(new FixedWindow(100, Duration.ofMinutes(1))));
		RateLimitPolicy policy = new RateLimitPolicy("p", new KeySource.ApiKey(), false, 1, StoreType.CAFFEINE,
				Map.of("anonymous", TIER, "pro", pro), TIER);
		RateLimitPolicies policies = new RateLimitPolicies(Map.of("p", policy),
				Map.of("pro-key", "pro", "gold-key", "gold"));
		GatewayFilter filter = new RateLimitGatewayFilterFactory(new RequestJudges(policies, new BucketStores(List.of(this.store), List.of()),
				List.of(this::record), HeaderStyle.DRAFT_06, "X-API-Key", problemWriter(), null, null, RateLimitMessages.DEFAULTS, new HeldRequests(10_000)), this.beans)
			.apply(new RateLimitGatewayFilterFactory.Config().setPolicy("p"));
		this.store.answer(() -> Mono.just(Verdict.of(new Decision(true, 9, 10, 1, 0))));
		for (String apiKey : new String[] { "pro-key", "gold-key", "made-up", "" }) {
			MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/")
				.remoteAddress(new InetSocketAddress("198.51.100.4", 40000))
				.header("X-API-Key", apiKey));
			filter.filter(exchange, (chained) -> Mono.empty()).block();
		}
		filter.filter(exchange(), (chained) -> Mono.empty()).block();
		assertThat(this.store.ids).containsExactly(new BucketId("p", "pro", "pro-key"),
				new BucketId("p", "anonymous", "gold-key"), new BucketId("p", "anonymous", "198.51.100.4"),
				new BucketId("p", "anonymous", "198.51.100.4"), new BucketId("p", "anonymous", "198.51.100.4"));
		assertThat(this.store.tiers).containsExactly(pro, TIER, TIER, TIER, TIER);
	}

	@Test
	void aStoreDecidingAtOnceIsNotAskedForAMono() {
		this.store.answerNow(() -> Verdict.of(new Decision(true, 9, 10, 60_000_000_000L, 0)));
		assertAllowedWithHeaders(run(new KeySource.ClientIp()));
	}

	@Test
	void aStoreDecidingAtOnceRejectsWithoutCallingTheChain() {
		this.store.answerNow(() -> Verdict.of(Decision.rejected(0, 10, 30_000_000_000L)));
		MockServerWebExchange exchange = run(new KeySource.Header("X-Tenant"));
		assertThat(this.chainCalls).hasValue(0);
		assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(exchange.getResponse().getHeaders().getFirst("Retry-After")).isEqualTo("30");
		assertThat(this.outcomes).containsExactly(Outcome.REJECTED);
	}

	@Test
	void aStoreThrowingWhenDecidingAtOnceLetsTheRequestThrough() {
		this.store.answerNow(() -> {
			throw new IllegalStateException("bug");
		});
		assertPassedAsError(run(new KeySource.ClientIp()));
	}

	@Test
	void aFailingStoreLetsTheRequestThroughWithoutQuotaHeaders() {
		this.store.answer(() -> Mono.error(new IllegalStateException("connection refused")));
		MockServerWebExchange exchange = run(new KeySource.ClientIp());
		assertPassedAsError(exchange);
	}

	@Test
	void aStoreThrowingInsteadOfSignallingLetsTheRequestThrough() {
		this.store.answer(() -> {
			throw new IllegalStateException("bug");
		});
		assertPassedAsError(run(new KeySource.ClientIp()));
	}

	@Test
	void aStoreAnsweringNothingLetsTheRequestThrough() {
		this.store.answer(Mono::empty);
		assertPassedAsError(run(new KeySource.ClientIp()));
	}

	@Test
	void aFailOpenFallbackIsAnErrorWithoutQuotaHeaders() {
		this.store.answer(() -> Mono.just(Verdict.withoutLimits(true, 0)));
		assertPassedAsError(run(new KeySource.ClientIp()));
	}

	@Test
	void aFailClosedFallbackRejectsAsAnError() {
		this.store.answer(() -> Mono.just(Verdict.withoutLimits(false, 5_000_000_000L)));
		MockServerWebExchange exchange = run(new KeySource.ClientIp());
		assertThat(this.chainCalls).hasValue(0);
		assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(exchange.getResponse().getHeaders().getFirst("Retry-After")).isEqualTo("5");
		assertThat(exchange.getResponse().getHeaders().getFirst("RateLimit-Limit")).isNull();
		assertThat(this.outcomes).containsExactly(Outcome.ERROR);
	}

	@Test
	void aFailClosedFallbackNamesNoViolatedPolicy() {
		this.store.answer(() -> Mono.just(Verdict.withoutLimits(false, 5_000_000_000L)));
		String body = run(new KeySource.ClientIp()).getResponse().getBodyAsString().block();
		assertThat(body).contains("\"violated-policies\":[]")
			.contains("\"detail\":\"The rate limit could not be checked, so the request was refused; retry after "
					+ "the time given.\"");
	}

	@Test
	void aRejectionNamesTheLimitsThatRejectedAndDescribesTheReportedOne() {
		Tier tier = new Tier("anonymous", List.of(new FixedWindow(100, Duration.ofDays(1)),
				new FixedWindow(10, Duration.ofMinutes(1)), new FixedWindow(5, Duration.ofSeconds(1))),
				Arrays.asList("daily", null, "per-second"));
		this.store.answer(() -> Mono.just(Verdict.of(new Decision(true, 40, 100, 1, 0),
				Decision.rejected(0, 10, 30_000_000_000L), Decision.rejected(0, 5, 500_000_000L))));
		MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/orders/7")
			.remoteAddress(new InetSocketAddress("198.51.100.4", 40000)));
		factory(new KeySource.ClientIp(), List.of(this::record), tier, StoreType.CAFFEINE, HeaderStyle.DRAFT_06)
			.apply(new RateLimitGatewayFilterFactory.Config().setPolicy("p"))
			.filter(exchange, (chained) -> Mono.fromRunnable(this.chainCalls::incrementAndGet))
			.block();
		assertThat(this.chainCalls).hasValue(0);
		assertThat(exchange.getResponse().getHeaders().getFirst("Retry-After")).isEqualTo("30");
		assertThat(exchange.getResponse().getHeaders().getFirst("RateLimit-Reset")).isEqualTo("30");
		assertThat(exchange.getResponse().getBodyAsString().block())
			.contains("\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\"")
			.contains("\"violated-policies\":[\"p-anonymous-2\",\"per-second\"]")
			.contains("\"detail\":\"You have exceeded the rate limit of 10 requests per minute.\"")
			.contains("\"retryAfter\":30");
	}

	@Test
	void aPolicyWhoseNamesTheHeadersCannotCarryFailsWhenTheRouteIsBuilt() {
		Tier tier = new Tier("g\u00f6", List.of(new FixedWindow(10, Duration.ofMinutes(1))));
		RateLimitGatewayFilterFactory factory = factory(new KeySource.ClientIp(), List.of(), tier,
				StoreType.CAFFEINE, HeaderStyle.DRAFT_11);
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> factory.apply(new RateLimitGatewayFilterFactory.Config().setPolicy("p")))
			.withMessageContaining("ratelimit.policies.p.tiers.g\u00f6[0].name: was not set, must be set with "
					+ "ratelimit.headers=draft-11: the default name 'p-g\u00f6-1'");
	}

	@Test
	void aKeyResolverThatThrowsLetsTheRequestThrough() {
		this.beans.addBean("broken", (KeyResolver) (exchange) -> {
			throw new IllegalStateException("bug");
		});
		this.store.answer(() -> Mono.just(Verdict.of(new Decision(true, 9, 10, 1, 0))));
		assertPassedAsError(run(new KeySource.Bean("broken")));
	}

	@Test
	void aListenerThatThrowsNeitherStopsOtherListenersNorTheRequest() {
		this.store.answer(() -> Mono.just(Verdict.of(new Decision(true, 9, 10, 1, 0))));
		RateLimitListener broken = (policy, tier, route, store, outcome, nanos) -> {
			throw new IllegalStateException("bug");
		};
		GatewayFilter filter = factory(new KeySource.ClientIp(), List.of(broken, this::record))
			.apply(new RateLimitGatewayFilterFactory.Config().setPolicy("p"));
		filter.filter(exchange(), (exchange) -> Mono.fromRunnable(this.chainCalls::incrementAndGet)).block();
		assertThat(this.chainCalls).hasValue(1);
		assertThat(this.outcomes).containsExactly(Outcome.ALLOWED);
	}

	@Test
	void anUnknownPolicyFailsWhenTheRouteIsBuilt() {
		RateLimitGatewayFilterFactory.Config config = new RateLimitGatewayFilterFactory.Config().setPolicy("nope");
		config.setRouteId("orders-route");
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> factory(new KeySource.ClientIp(), List.of()).apply(config))
			.withMessageContaining("route 'orders-route' filter RateLimit argument policies: was nope, must name a "
					+ "policy defined under ratelimit.policies (defined: [p])");
	}

	@Test
	void aPolicyOnAStoreThatIsNotAvailableFailsWhenTheRouteIsBuilt() {
		RateLimitGatewayFilterFactory factory = factory(new KeySource.ClientIp(), List.of(), TIER, StoreType.REDIS,
				HeaderStyle.DRAFT_06);
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> factory.apply(new RateLimitGatewayFilterFactory.Config().setPolicy("p")))
			.withMessageContaining("ratelimit.policies.p.store (or ratelimit.store): was redis, must name an "
					+ "available store (available: [caffeine])");
	}

	@Test
	void policyIdsReadEveryFormAndIgnoreOtherFilters() {
		assertThat(FilterDefinitions.rateLimitPolicies(new FilterDefinition("RateLimit=orders")))
			.containsExactly("orders");
		assertThat(FilterDefinitions.rateLimitPolicies(new FilterDefinition("RateLimit=per-ip, global")))
			.containsExactly("per-ip", "global");
		FilterDefinition longForm = new FilterDefinition();
		longForm.setName("RateLimit");
		longForm.addArg("policy", "search");
		assertThat(FilterDefinitions.rateLimitPolicies(longForm)).containsExactly("search");
		FilterDefinition list = new FilterDefinition();
		list.setName("RateLimit");
		list.addArg("policies.0", "per-ip");
		list.addArg("policies.1", "global");
		assertThat(FilterDefinitions.rateLimitPolicies(list)).containsExactly("per-ip", "global");
		assertThat(FilterDefinitions.rateLimitPolicies(new FilterDefinition("RateLimit"))).isEmpty();
		assertThat(FilterDefinitions.rateLimitPolicies(new FilterDefinition("StripPrefix=1"))).isNull();
	}

	private void assertAllowedWithHeaders(MockServerWebExchange exchange) {
		assertThat(this.chainCalls).hasValue(1);
		assertThat(exchange.getResponse().getHeaders().getFirst("RateLimit-Remaining")).isEqualTo("9");
		assertThat(this.outcomes).containsExactly(Outcome.ALLOWED);
		assertThat(this.store.ids).containsExactly(new BucketId("p", "anonymous", "198.51.100.4"));
	}

	private void assertPassedAsError(MockServerWebExchange exchange) {
		assertThat(this.chainCalls).hasValue(1);
		assertThat(exchange.getResponse().getStatusCode()).isNull();
		assertThat(exchange.getResponse().getHeaders().getFirst("RateLimit-Limit")).isNull();
		assertThat(exchange.getResponse().getHeaders().getFirst("Retry-After")).isNull();
		assertThat(this.outcomes).containsExactly(Outcome.ERROR);
	}

	private MockServerWebExchange run(KeySource key) {
		GatewayFilter filter = factory(key, List.of(this::record))
			.apply(new RateLimitGatewayFilterFactory.Config().setPolicy("p"));
		MockServerWebExchange exchange = exchange();
		filter.filter(exchange, (chained) -> Mono.fromRunnable(this.chainCalls::incrementAndGet)).block();
		return exchange;
	}

	private RateLimitGatewayFilterFactory factory(KeySource key, List<RateLimitListener> listeners) {
		return factory(key, listeners, TIER, StoreType.CAFFEINE, HeaderStyle.DRAFT_06);
	}

	/**
	 * A factory of policy {@code p}, whose only tier, the default one, is {@code tier}.
	 */
	private RateLimitGatewayFilterFactory factory(KeySource key, List<RateLimitListener> listeners, Tier tier,
			StoreType store, HeaderStyle style) {
		RateLimitPolicy policy = new RateLimitPolicy("p", key, false, 1, store, Map.of(tier.name(), tier), tier);
		return new RateLimitGatewayFilterFactory(
				new RequestJudges(new RateLimitPolicies(Map.of("p", policy), Map.of()),
						new BucketStores(List.of(this.store), List.of()), listeners, style, "X-API-Key", problemWriter(), null, null, RateLimitMessages.DEFAULTS, new HeldRequests(10_000)),
				this.beans);
	}

	private static RateLimitProblemWriter problemWriter() {
		return new RateLimitProblemWriter(ServerCodecConfigurer.create().getWriters(), TYPE);
	}

	private void record(String policy, String tier, String route, String store, Outcome outcome, long nanos) {
		this.outcomes.add(outcome);
	}

	private static MockServerWebExchange exchange() {
		return MockServerWebExchange
			.from(MockServerHttpRequest.get("/orders").remoteAddress(new InetSocketAddress("198.51.100.4", 40000)));
	}

}
