package dev.ratelimit.autoconfigure;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import dev.ratelimit.gateway.PassThroughRateLimitGatewayFilterFactory;
import dev.ratelimit.gateway.RateLimitGatewayFilterFactory;
import dev.ratelimit.gateway.RateLimitRouteValidator;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketInspector;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.testsupport.DecideOnlyStore;
import dev.ratelimit.web.HeaderStyle;
import dev.ratelimit.web.RateLimitMessages;
import dev.ratelimit.web.RateLimitProblemWriter;
import dev.ratelimit.web.HeldRequests;
import dev.ratelimit.web.RequestJudges;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Mono;

import org.springframework.aot.AotDetector;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.factory.GatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.route.RouteDefinition;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitAutoConfigurationTests {

	private static final String[] ORDERS = { "ratelimit.policies.orders.tiers.anonymous[0].algorithm=fixed-window",
			"ratelimit.policies.orders.tiers.anonymous[0].limit=60",
			"ratelimit.policies.orders.tiers.anonymous[0].window=1m" };

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitDisabledAutoConfiguration.class));

	@Test
	void createsClockPoliciesStoreFilterAndValidator() {
		this.contextRunner.withPropertyValues(ORDERS).run((context) -> {
			assertThat(context).hasSingleBean(RateLimitProperties.class);
			assertThat(context.getBean(MonotonicClock.class)).isSameAs(MonotonicClock.SYSTEM);
			assertThat(context.getBean(RateLimitPolicies.class).policy("orders")).isNotNull();
			assertThat(context).hasSingleBean(CaffeineBucketStore.class);
			BucketStores stores = context.getBean(BucketStores.class);
			RateLimitPolicy orders = context.getBean(RateLimitPolicies.class).policy("orders");
			assertThat(stores.decider(orders)).isSameAs(context.getBean(CaffeineBucketStore.class));
			assertThat(stores.inspector(orders)).isSameAs(context.getBean(CaffeineBucketStore.class));
			assertThat(context).hasSingleBean(RateLimitGatewayFilterFactory.class);
			assertThat(context).hasSingleBean(RateLimitRouteValidator.class);
			assertThat(context).doesNotHaveBean(PassThroughRateLimitGatewayFilterFactory.class);
			assertThat(context.getBean(RateLimitGatewayFilterFactory.class).name()).isEqualTo("RateLimit");
		});
	}

	@Test
	void backsOffWhenTheUserDefinesBeans() {
		MonotonicClock clock = () -> 42;
		RateLimitPolicies policies = new RateLimitPolicies(Map.of(), Map.of());
		CaffeineBucketStore store = new CaffeineBucketStore(clock, 10);
		BucketStores stores = new BucketStores(List.of(store), List.of(store));
		RateLimitGatewayFilterFactory factory = new RateLimitGatewayFilterFactory(new RequestJudges(policies,
				stores, List.of(), HeaderStyle.NONE, "X-API-Key",
				new RateLimitProblemWriter(ServerCodecConfigurer.create().getWriters(),
						URI.create("https://example.com/problems/rate-limited")),
				null, null, RateLimitMessages.DEFAULTS, new HeldRequests(10_000)), null);
		this.contextRunner.withPropertyValues(ORDERS)
			.withBean(MonotonicClock.class, () -> clock)
			.withBean(RateLimitPolicies.class, () -> policies)
			.withBean(CaffeineBucketStore.class, () -> store)
			.withBean(BucketStores.class, () -> stores)
			.withBean(RateLimitGatewayFilterFactory.class, () -> factory)
			.run((context) -> {
				assertThat(context.getBean(MonotonicClock.class)).isSameAs(clock);
				assertThat(context.getBean(RateLimitPolicies.class)).isSameAs(policies);
				assertThat(context.getBean(CaffeineBucketStore.class)).isSameAs(store);
				assertThat(context.getBean(BucketStores.class)).isSameAs(stores);
				assertThat(context.getBean(RateLimitGatewayFilterFactory.class)).isSameAs(factory);
			});
	}

	@Test
	void disabledAppliesAPassThroughFilterAndNothingElse() {
		this.contextRunner.withPropertyValues(ORDERS).withPropertyValues("ratelimit.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(RateLimitGatewayFilterFactory.class);
			assertThat(context).doesNotHaveBean(RateLimitPolicies.class);
			assertThat(context).doesNotHaveBean(BucketDecider.class);
			assertThat(context).doesNotHaveBean(BucketInspector.class);
			assertThat(context).doesNotHaveBean(BucketStores.class);
			assertThat(context).doesNotHaveBean(RateLimitProperties.class);
			assertThat(context).getBean(GatewayFilterFactory.class)
				.isInstanceOf(PassThroughRateLimitGatewayFilterFactory.class);
			assertThat(context.getBean(GatewayFilterFactory.class).name()).isEqualTo("RateLimit");
		});
	}

	@Test
	void disabledIgnoresInvalidPolicies() {
		this.contextRunner
			.withPropertyValues("ratelimit.enabled=false", "ratelimit.policies.orders.tiers.anonymous[0].algorithm=nope")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void invalidPropertiesFailWithEveryProblem() {
		this.contextRunner
			.withPropertyValues("ratelimit.policies.orders.tiers.free[0].algorithm=token-bucket",
					"ratelimit.policies.orders.tiers.free[0].capacity=10",
					"ratelimit.policies.orders.tiers.free[0].refill-rate=0",
					"ratelimit.policies.search.tiers.anonymous[0].algorithm=fixed-windw",
					"ratelimit.policies.search.key=#{@nope}")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.policies.orders.tiers.free[0].refill-rate: was 0, must be a positive number")
				.hasMessageContaining("ratelimit.policies.orders.tiers: was [free], must include the default tier "
						+ "'anonymous' (ratelimit.tiers.default)")
				.hasMessageContaining("ratelimit.policies.search.tiers.anonymous[0].algorithm: was fixed-windw, "
						+ "must be one of [fixed-window, sliding-window-log, sliding-window-counter, token-bucket, "
						+ "leaky-bucket, concurrency]")
				.hasMessageContaining("ratelimit.policies.search.key: was '#{@nope}', must name a KeyResolver bean "
						+ "(KeyResolver beans: none)"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("invalidProperties")
	void eachInvalidPropertyFailsWithItsMessage(String expectedMessage, String[] properties) {
		this.contextRunner.withPropertyValues(properties)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining(expectedMessage));
	}

	static Stream<Arguments> invalidProperties() {
		String limit = "ratelimit.policies.orders.tiers.anonymous[0].";
		return Stream.of(
				invalid("ratelimit.policies.orders.tiers.anonymous[0].limit: was 0, must be a positive number",
						limit + "algorithm=fixed-window", limit + "limit=0", limit + "window=1m"),
				invalid("ratelimit.policies.orders.tiers.anonymous[0].capacity: was -2, must be a positive number",
						limit + "algorithm=leaky-bucket", limit + "capacity=-2", limit + "drain-rate=1"),
				invalid("ratelimit.policies.orders.tiers.anonymous[0].refill-rate: was 0, must be a positive number",
						limit + "algorithm=token-bucket", limit + "capacity=5", limit + "refill-rate=0"),
				invalid("ratelimit.policies.orders.tiers.anonymous[0].drain-rate: was -1, must be a positive number",
						limit + "algorithm=leaky-bucket", limit + "capacity=5", limit + "drain-rate=-1"),
				invalid("ratelimit.policies.orders.tiers.anonymous[0].window: was 0s, must be a positive duration",
						limit + "algorithm=sliding-window-log", limit + "limit=5", limit + "window=0"),
				invalid("ratelimit.policies.orders.tiers.anonymous[0].window: was -1s, must be a positive duration",
						limit + "algorithm=sliding-window-counter", limit + "limit=5", limit + "window=-1s"),
				invalid("ratelimit.policies.orders.tiers.anonymous[0].algorithm: was sliding-window, must be one of",
						limit + "algorithm=sliding-window", limit + "limit=5", limit + "window=1s"),
				invalid("ratelimit.policies.orders.tiers.anonymous[0].capacity: was not set, must be set for "
						+ "token-bucket", limit + "algorithm=token-bucket", limit + "refill-rate=1"),
				invalid("ratelimit.policies.orders.tiers.anonymous[0].refill-rate: was 1, must not be set for "
						+ "fixed-window", limit + "algorithm=fixed-window", limit + "limit=5", limit + "window=1s",
						limit + "refill-rate=1"),
				invalid("ratelimit.policies.orders.tiers: was [free], must include the default tier 'anonymous'",
						"ratelimit.policies.orders.tiers.free[0].algorithm=fixed-window",
						"ratelimit.policies.orders.tiers.free[0].limit=5",
						"ratelimit.policies.orders.tiers.free[0].window=1s"),
				invalid("ratelimit.policies.orders.cost: was 6, must not exceed the quota of "
						+ "ratelimit.policies.orders.tiers.anonymous[0] (5)", limit + "algorithm=fixed-window",
						limit + "limit=5", limit + "window=1s", "ratelimit.policies.orders.cost=6"),
				invalid("ratelimit.policies.orders.key: was 'header:', must name an HTTP header",
						limit + "algorithm=fixed-window", limit + "limit=5", limit + "window=1s",
						"ratelimit.policies.orders.key=header:"),
				invalid("ratelimit.policies.orders.key: was '#{@missing}', must name a KeyResolver bean",
						limit + "algorithm=fixed-window", limit + "limit=5", limit + "window=1s",
						"ratelimit.policies.orders.key=#{@missing}"),
				invalid("ratelimit.policies.orders.store (or ratelimit.store): was hybrid, must name an available "
						+ "store", limit + "algorithm=fixed-window", limit + "limit=5", limit + "window=1s",
						"ratelimit.store=hybrid"),
				invalid("ratelimit.api-key-header: was '', must be an HTTP header name",
						limit + "algorithm=fixed-window", limit + "limit=5", limit + "window=1s",
						"ratelimit.api-key-header="),
				invalid("ratelimit.tiers.header: was 'X Plan', must be an HTTP header name",
						limit + "algorithm=fixed-window", limit + "limit=5", limit + "window=1s",
						"ratelimit.tiers.header=X Plan"),
				invalid("ratelimit.tiers.header: was 'X-Plan', must not be set together with ratelimit.tiers.claim "
						+ "('plan')", limit + "algorithm=fixed-window", limit + "limit=5", limit + "window=1s",
						"ratelimit.tiers.header=X-Plan", "ratelimit.tiers.claim=plan"),
				invalid("ratelimit.tiers.claim: was '', must name a claim", limit + "algorithm=fixed-window",
						limit + "limit=5", limit + "window=1s", "ratelimit.tiers.claim= "),
				invalid("ratelimit.policies.orders.cost-header: was 'X:Cost', must be an HTTP header name",
						limit + "algorithm=fixed-window", limit + "limit=5", limit + "window=1s",
						"ratelimit.policies.orders.cost-header=X:Cost"));
	}

	private static Arguments invalid(String expectedMessage, String... properties) {
		return Arguments.of(expectedMessage, properties);
	}

	@Test
	void anUnknownHeaderStyleFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.headers=draft-99")
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.headers: was draft-99, must be draft-06, draft-11, x-ratelimit or none"));
	}

	@Test
	void keyResolverBeansMayBeNamed() {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.policies.orders.key=#{@tenantKeyResolver}")
			.withBean("tenantKeyResolver", KeyResolver.class, () -> (exchange) -> Mono.just("tenant"))
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void nonPositiveMaximumKeysFails() {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.caffeine.maximum-keys=0")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.caffeine.maximum-keys: was 0, must be a positive number"));
	}

	@Test
	void aStoreOfTheApplicationsOwnThatOnlyDecidesServesItsPoliciesRoutes() {
		DecideOnlyStore own = new DecideOnlyStore("redis");
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.policies.orders.store=redis")
			.withBean(DecideOnlyStore.class, () -> own)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RateLimitPolicy orders = context.getBean(RateLimitPolicies.class).policy("orders");
				assertThat(context.getBean(BucketStores.class).decider(orders)).isSameAs(own);
				assertThat(context.getBean(BucketStores.class).inspector(orders)).isNull();
				GatewayFilter filter = context.getBean(RateLimitGatewayFilterFactory.class)
					.apply(new RateLimitGatewayFilterFactory.Config().setPolicy("orders"));
				MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/orders")
					.remoteAddress(new InetSocketAddress("198.51.100.4", 40000)));
				AtomicBoolean forwarded = new AtomicBoolean();
				filter.filter(exchange, (forward) -> Mono.fromRunnable(() -> forwarded.set(true))).block();
				assertThat(forwarded).isTrue();
				assertThat(own.acquired()).isEqualTo(1);
				assertThat(exchange.getResponse().getHeaders().getFirst("RateLimit-Remaining")).isEqualTo("41");
			});
	}

	@Test
	void aPolicyOnAMissingStoreFails() {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.policies.orders.store=redis")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.policies.orders.store (or ratelimit.store): was redis, "
						+ "must name an available store (available: [caffeine])"));
	}

	@Test
	void aRouteNamingAnUnknownPolicyFailsAtStartUp() {
		GatewayProperties gateway = new GatewayProperties();
		RouteDefinition route = new RouteDefinition("id=orders,uri=http://localhost,Path=/orders/**");
		route.setFilters(List.of(new FilterDefinition("AddRequestHeader=X-Seen,yes"),
				new FilterDefinition("RateLimit=ordres")));
		gateway.setRoutes(List.of(route));
		gateway.setDefaultFilters(List.of(new FilterDefinition("RateLimit")));
		this.contextRunner.withPropertyValues(ORDERS)
			.withBean(GatewayProperties.class, () -> gateway)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("spring.cloud.gateway.server.webflux.routes[0].filters[1]: was RateLimit=ordres, "
						+ "must name a policy defined under ratelimit.policies (defined: [orders])")
				.hasMessageContaining("spring.cloud.gateway.server.webflux.default-filters[0]: was RateLimit=, "
						+ "must name a policy defined under ratelimit.policies (defined: [orders])"));
	}

	@Test
	void routesNamingKnownPoliciesInEitherFormOrDisabledStart() {
		GatewayProperties gateway = new GatewayProperties();
		RouteDefinition shortcut = new RouteDefinition("id=a,uri=http://localhost,Path=/a/**");
		shortcut.setFilters(List.of(new FilterDefinition("RateLimit=orders")));
		RouteDefinition longForm = new RouteDefinition("id=b,uri=http://localhost,Path=/b/**");
		FilterDefinition filter = new FilterDefinition();
		filter.setName("RateLimit");
		filter.addArg("policy", "orders");
		longForm.setFilters(List.of(filter));
		RouteDefinition disabled = new RouteDefinition("id=c,uri=http://localhost,Path=/c/**");
		disabled.setFilters(List.of(new FilterDefinition("RateLimit=not-yet-defined")));
		disabled.setEnabled(false);
		gateway.setRoutes(List.of(shortcut, longForm, disabled));
		this.contextRunner.withPropertyValues(ORDERS)
			.withBean(GatewayProperties.class, () -> gateway)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void failureAnalysisListsEveryProblemWithAnAction() {
		this.contextRunner
			.withPropertyValues("ratelimit.policies.orders.tiers.anonymous[0].algorithm=leaky-bucket",
					"ratelimit.policies.orders.tiers.anonymous[0].capacity=-1",
					"ratelimit.policies.orders.tiers.anonymous[0].drain-rate=1",
					"ratelimit.policies.orders.tiers.anonymous[0].limit=5")
			.run((context) -> {
				FailureAnalysis analysis = new InvalidRateLimitConfigurationFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("The rate limit configuration is invalid:")
					.contains("    ratelimit.policies.orders.tiers.anonymous[0].capacity: was -1, must be a positive number")
					.contains("    ratelimit.policies.orders.tiers.anonymous[0].limit: was 5, must not be set for "
							+ "leaky-bucket, which takes capacity, drain-rate and optionally drain-period");
				assertThat(analysis.getAction()).contains("Correct the properties listed above");
			});
	}

	@Test
	void withSpringAotAMissingStoreIsExplainedByTheBuildTimeConditions() {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.policies.orders.store=redis")
			.run((context) -> {
				InvalidRateLimitConfigurationFailureAnalyzer analyzer = new InvalidRateLimitConfigurationFailureAnalyzer();
				assertThat(analyzer.analyze(context.getStartupFailure()).getAction()).doesNotContain("Spring AOT");
				System.setProperty(AotDetector.AOT_ENABLED, "true");
				try {
					assertThat(analyzer.analyze(context.getStartupFailure()).getAction())
						.contains("With Spring AOT the stores are those configured when the application was "
								+ "AOT-processed: set ratelimit.store (or the profile that sets it)");
				}
				finally {
					System.clearProperty(AotDetector.AOT_ENABLED);
				}
			});
	}

}
