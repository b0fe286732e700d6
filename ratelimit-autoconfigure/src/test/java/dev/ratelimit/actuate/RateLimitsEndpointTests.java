package dev.ratelimit.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.actuate.RateLimitsEndpoint.BucketDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.BucketsDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.BucketLimitDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.ClientBucketsDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.HeldRequestsDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.InvalidParameterDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.LimitDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.PolicyDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.RateLimitsDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.RouteDescriptor;
import dev.ratelimit.actuate.RateLimitTotals.Totals;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Shaping;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.gateway.GatewayRateLimitedRoutes;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.testsupport.DecideOnlyStore;
import dev.ratelimit.testsupport.FixedSnapshotsInspector;
import dev.ratelimit.testsupport.ShapingJudge;
import dev.ratelimit.testsupport.TestPolicies;
import dev.ratelimit.web.HeldRequests;
import dev.ratelimit.web.Outcome;
import dev.ratelimit.web.RateLimitWebFilter;
import dev.ratelimit.web.RateLimitedRoutes;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.route.RouteDefinition;
import org.springframework.http.HttpMethod;
import org.springframework.web.util.pattern.PathPatternParser;

import static dev.ratelimit.testsupport.FixedSnapshotsInspector.fixedWindow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link RateLimitsEndpoint}.
 */
class RateLimitsEndpointTests {

	private final FixedSnapshotsInspector store = new FixedSnapshotsInspector("caffeine");

	private final RateLimitTotals totals = new RateLimitTotals();

	private final RateLimitsEndpoint endpoint = new RateLimitsEndpoint(TestPolicies.policies(), inspecting(this.store),
			this.totals, new KeyMasker(ShowKeys.NEVER, 4), null);

	@Test
	void listsEveryPolicyWithItsTiersLimitsBucketsAndTotals() {
		this.store.add("orders", "anonymous", "203.0.113.7", 3, fixedWindow(60, 57))
			.add("orders", "free", "demo-free-key", 1, fixedWindow(10, 9))
			.add("search", "anonymous", "203.0.113.7", 1, fixedWindow(5, 3));
		this.totals.onDecision("orders", "free", "r1", "caffeine", Outcome.ALLOWED, 10);
		this.totals.onDecision("orders", "free", "r1", "caffeine", Outcome.ALLOWED, 10);
		this.totals.onDecision("orders", "free", "r1", "caffeine", Outcome.REJECTED, 10);
		RateLimitsDescriptor descriptor = this.endpoint.rateLimits().block();
		assertThat(descriptor.stores()).containsExactly("caffeine");
		assertThat(descriptor.policies()).containsOnlyKeys("orders", "search");
		PolicyDescriptor orders = descriptor.policies().get("orders");
		assertThat(orders.key()).isEqualTo("api-key");
		assertThat(orders.shadow()).isFalse();
		assertThat(orders.store()).isEqualTo("caffeine");
		assertThat(orders.liveBuckets()).isEqualTo(2);
		assertThat(orders.liveBucketsError()).isNull();
		assertThat(orders.totals()).isEqualTo(new Totals(2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
		assertThat(orders.defaultTier()).isEqualTo("anonymous");
		assertThat(orders.routes()).isEmpty();
		assertThat(orders.tiers().get("anonymous"))
			.containsExactly(new LimitDescriptor("orders-anonymous-1", "fixed-window", Map.of("limit", 60L, "window", "1m")));
		assertThat(orders.tiers().get("free")).containsExactly(
				new LimitDescriptor("orders-free-1", "token-bucket",
						Map.of("capacity", 10L, "refill-rate", 2.0, "refill-period", "1s")),
				new LimitDescriptor("orders-free-2", "fixed-window", Map.of("limit", 10000L, "window", "1d")));
		PolicyDescriptor search = descriptor.policies().get("search");
		assertThat(search.key()).isEqualTo("ip");
		assertThat(search.shadow()).isTrue();
		assertThat(search.cost()).isEqualTo(2);
		assertThat(search.tiers().get("anonymous"))
			.containsExactly(new LimitDescriptor("search-anonymous-1", "fixed-window", Map.of("limit", 5L, "window", "1500ms")));
	}

	@Test
	void showsShapingParametersWithDurationsAsConfigured() {
		RateLimitPolicy payments = TestPolicies.policy("payments", StoreType.CAFFEINE, TestPolicies.tier("anonymous",
				new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofMillis(1500), 2)),
				new TokenBucket(100, 10, Duration.ofMinutes(1), new Shaping(Duration.ofSeconds(3)))));
		RateLimitPolicies policies = new RateLimitPolicies(Map.of("payments", payments), Map.of());
		RateLimitsDescriptor descriptor = new RateLimitsEndpoint(policies, inspecting(this.store), this.totals,
				new KeyMasker(ShowKeys.NEVER, 4), null)
			.rateLimits()
			.block();
		List<LimitDescriptor> limits = descriptor.policies().get("payments").tiers().get("anonymous");
		assertThat(limits.get(0).parameters()).containsExactly(Map.entry("capacity", 5L), Map.entry("drain-rate", 2.0),
				Map.entry("drain-period", "1s"), Map.entry("shaping.max-delay", "1500ms"),
				Map.entry("shaping.delay-after", 2L));
		// A token bucket's burst is its capacity: it has no delay-after.
		assertThat(limits.get(1).parameters()).containsExactly(Map.entry("capacity", 100L),
				Map.entry("refill-rate", 10.0), Map.entry("refill-period", "1m"), Map.entry("shaping.max-delay", "3s"));
	}

	@Test
	void showsTheRequestsThisNodeHoldsTheirTotalsAndTheQueueOfTheBucketHoldingThem() {
		HeldRequests held = new HeldRequests(2);
		ShapingJudge judge = new ShapingJudge(held, List.of(this.totals));
		assertThat(judge.request("203.0.113.7").block()).isTrue();
		Disposable second = judge.request("203.0.113.7").subscribe();
		Disposable third = judge.request("203.0.113.7").subscribe();
		// Held three hours, within its max-delay, but this node already holds two.
		assertThat(judge.request("203.0.113.7").block()).isFalse();
		RateLimitsEndpoint endpoint = new RateLimitsEndpoint(() -> judge.policies, judge.stores(), this.totals,
				new KeyMasker(ShowKeys.ALWAYS, 4), null, List.of(), null, held);
		RateLimitsDescriptor descriptor = endpoint.rateLimits().block();
		assertThat(descriptor.heldRequests()).isEqualTo(new HeldRequestsDescriptor(2, 2));
		// The refused one's place was given back: one unit refunded.
		assertThat(descriptor.policies().get(ShapingJudge.POLICY).totals())
			.isEqualTo(new Totals(1, 0, 0, 0, 0, 2, 0, 1, 0, 1, 0, 0));
		BucketDescriptor bucket = endpoint.clientBuckets(ShapingJudge.POLICY, "203.0.113.7").block()
			.buckets()
			.get(0);
		// Three in the queue (the refused one's place given back); one judged now would wait
		// for all three to drain, an hour each.
		assertThat(bucket.limits()).singleElement().satisfies((limit) -> {
			assertThat(limit.algorithm()).isEqualTo("leaky-bucket");
			assertThat(limit.limit()).isEqualTo(5);
			assertThat(limit.remaining()).isEqualTo(2);
			assertThat(limit.state()).containsExactly(Map.entry("level", 3.0), Map.entry("hold", 10800.0));
		});
		second.dispose();
		third.dispose();
		assertThat(endpoint.rateLimits().block().heldRequests()).isEqualTo(new HeldRequestsDescriptor(0, 2));
		BucketLimitDescriptor givenBack = endpoint.clientBuckets(ShapingJudge.POLICY, "203.0.113.7").block()
			.buckets()
			.get(0)
			.limits()
			.get(0);
		assertThat(givenBack.state()).containsExactly(Map.entry("level", 1.0), Map.entry("hold", 3600.0));
	}

	@Test
	void showsNoHeldRequestsWhereNoneCanBeHeld() {
		assertThat(this.endpoint.rateLimits().block().heldRequests()).isNull();
	}

	@Test
	void storeThatCannotCountLeavesTheOtherPoliciesListed() {
		FixedSnapshotsInspector failing = new FixedSnapshotsInspector("caffeine") {

			@Override
			public Mono<Long> bucketCount(RateLimitPolicy policy) {
				return policy.id().equals("orders") ? Mono.error(new IllegalStateException("connection refused"))
						: super.bucketCount(policy);
			}

		};
		RateLimitsEndpoint endpoint = new RateLimitsEndpoint(TestPolicies.policies(), inspecting(failing), this.totals,
				new KeyMasker(ShowKeys.NEVER, 4), null);
		RateLimitsDescriptor descriptor = endpoint.rateLimits().block();
		PolicyDescriptor orders = descriptor.policies().get("orders");
		assertThat(orders.liveBuckets()).isNull();
		assertThat(orders.liveBucketsError())
			.isEqualTo("the caffeine store could not count its buckets: java.lang.IllegalStateException: connection refused");
		PolicyDescriptor search = descriptor.policies().get("search");
		assertThat(search.liveBuckets()).isZero();
		assertThat(search.liveBucketsError()).isNull();
	}

	@Test
	void listsTheRoutesThatNameEachPolicyIncludingDefaultFilters() {
		RouteDefinition ordersRoute = route("orders-route", "RateLimit=orders");
		RouteDefinition longForm = route("orders-long", "AddRequestHeader=X-Test, 1");
		FilterDefinition longFilter = new FilterDefinition();
		longFilter.setName("RateLimit");
		longFilter.setArgs(Map.of("policy", "orders"));
		longForm.getFilters().add(longFilter);
		RouteDefinition unlimited = route("unlimited", "AddRequestHeader=X-Test, 1");
		RateLimitedRoutes routes = new GatewayRateLimitedRoutes(() -> Flux.just(ordersRoute, longForm, unlimited),
				List.of(new FilterDefinition("RateLimit=search")), null, null);
		RateLimitsEndpoint withRoutes = new RateLimitsEndpoint(TestPolicies.policies(), inspecting(this.store),
				this.totals, new KeyMasker(ShowKeys.NEVER, 4), routes);
		RateLimitsDescriptor descriptor = withRoutes.rateLimits().block();
		assertThat(descriptor.policies().get("orders").routes()).containsExactly("orders-route", "orders-long");
		assertThat(descriptor.policies().get("search").routes()).containsExactly("orders-route", "orders-long",
				"unlimited");
	}

	@Test
	void requestRateLimiterRoutesAreKeyedByTheirKeyResolverNotByThePolicysKey() {
		RouteDefinition named = route("legacy-tenant", "RequestRateLimiter");
		named.getFilters().get(0).setArgs(Map.of("rate-limiter", "#{@ordersRateLimiter}", "key-resolver",
				"#{@tenantKeyResolver}"));
		RouteDefinition byDefault = route("legacy", "RequestRateLimiter");
		byDefault.getFilters().get(0).setArgs(Map.of("rateLimiter", "#{@ordersRateLimiter}"));
		RouteDefinition limited = route("search", "RateLimit=search");
		RateLimitedRoutes routes = new GatewayRateLimitedRoutes(() -> Flux.just(named, byDefault, limited), List.of(), null,
				"#{@principalNameKeyResolver}");
		RateLimitsDescriptor descriptor = new RateLimitsEndpoint(TestPolicies.policies(), inspecting(this.store),
				this.totals, new KeyMasker(ShowKeys.NEVER, 4), routes)
			.rateLimits()
			.block();
		assertThat(descriptor.routes()).containsExactly(
				new RouteDescriptor("legacy-tenant", "orders", "RequestRateLimiter", "#{@tenantKeyResolver}", null,
						null),
				new RouteDescriptor("legacy", "orders", "RequestRateLimiter", "#{@principalNameKeyResolver}", null,
						null),
				new RouteDescriptor("search", "search", "RateLimit", "ip", null, null));
		// Only RequestRateLimiter routes use orders: its own key (api-key) keys nothing.
		assertThat(descriptor.policies().get("orders").key())
			.isEqualTo("#{@tenantKeyResolver}, #{@principalNameKeyResolver}");
		assertThat(descriptor.policies().get("orders").routes()).containsExactly("legacy-tenant", "legacy");
		assertThat(descriptor.policies().get("search").key()).isEqualTo("ip");
	}

	@Test
	void listsWebRoutesWithTheirPathsMethodsAndPolicy() {
		RateLimitPolicies policies = TestPolicies.policies();
		List<RateLimitWebFilter.Route> webRoutes = List.of(
				new RateLimitWebFilter.Route("orders-api",
						List.of(PathPatternParser.defaultInstance.parse("/orders/**"),
								PathPatternParser.defaultInstance.parse("/v2/orders/**")),
						Set.of(HttpMethod.POST, HttpMethod.GET), policies.policy("orders")),
				new RateLimitWebFilter.Route("search", List.of(PathPatternParser.defaultInstance.parse("/search")),
						Set.of(), policies.policy("search")));
		RateLimitsDescriptor descriptor = new RateLimitsEndpoint(() -> policies, inspecting(this.store), this.totals,
				new KeyMasker(ShowKeys.NEVER, 4), null, webRoutes, null)
			.rateLimits()
			.block();
		assertThat(descriptor.routes()).containsExactly(
				new RouteDescriptor("orders-api", "orders", "ratelimit.web.routes", "api-key",
						List.of("/orders/**", "/v2/orders/**"), List.of("GET", "POST")),
				new RouteDescriptor("search", "search", "ratelimit.web.routes", "ip", List.of("/search"), List.of()));
		assertThat(descriptor.policies().get("orders").routes()).containsExactly("orders-api");
		assertThat(descriptor.policies().get("search").routes()).containsExactly("search");
	}

	@Test
	void listsBucketsHottestFirstWithKeysMasked() {
		this.store.add("orders", "anonymous", "203.0.113.1", 5, fixedWindow(60, 55))
			.add("orders", "anonymous", "203.0.113.2", 9, fixedWindow(60, 51))
			.add("orders", "free", "demo-free-key", 5, fixedWindow(10, 0))
			.add("search", "anonymous", "203.0.113.3", 50, fixedWindow(5, 0));
		BucketsDescriptor buckets = buckets(this.endpoint, "orders", null);
		assertThat(buckets.policy()).isEqualTo("orders");
		assertThat(buckets.store()).isEqualTo("caffeine");
		assertThat(buckets.liveBuckets()).isEqualTo(3);
		assertThat(buckets.buckets()).extracting(BucketDescriptor::requests).containsExactly(9L, 5L, 5L);
		// Equal requests: the exhausted bucket comes first.
		BucketDescriptor exhausted = buckets.buckets().get(1);
		assertThat(exhausted.key()).isEqualTo("demo…9f8cfdb1");
		assertThat(exhausted.tier()).isEqualTo("free");
		assertThat(exhausted.limits()).singleElement().satisfies((limit) -> {
			assertThat(limit.name()).isEqualTo("orders-free-1");
			assertThat(limit.algorithm()).isEqualTo("fixed-window");
			assertThat(limit.limit()).isEqualTo(10);
			assertThat(limit.remaining()).isZero();
			assertThat(limit.resetSeconds()).isEqualTo(42);
			assertThat(limit.state()).containsEntry("count", 10L);
		});
		assertThat(buckets.buckets()).extracting(BucketDescriptor::key)
			.noneMatch((key) -> key.contains("203.0.113"));
	}

	@Test
	void showsKeysWhenAskedToAlways() {
		this.store.add("orders", "free", "demo-free-key", 5, fixedWindow(10, 0));
		RateLimitsEndpoint showing = new RateLimitsEndpoint(TestPolicies.policies(), inspecting(this.store),
				this.totals, new KeyMasker(ShowKeys.ALWAYS, 4), null);
		assertThat(buckets(showing, "orders", null).buckets()).extracting(BucketDescriptor::key)
			.containsExactly("demo-free-key");
	}

	@Test
	void capsListingAtLimitAfterWalkingEveryBucketOnce() {
		for (int i = 0; i < 500; i++) {
			this.store.add("orders", "anonymous", "client-" + i, i, fixedWindow(60, 30));
		}
		BucketsDescriptor buckets = buckets(this.endpoint, "orders", "3");
		assertThat(buckets.liveBuckets()).isEqualTo(500);
		assertThat(buckets.buckets()).extracting(BucketDescriptor::requests).containsExactly(499L, 498L, 497L);
		assertThat(this.store.emitted()).isEqualTo(500);
	}

	@Test
	void listsAtMostOneHundredBucketsByDefault() {
		for (int i = 0; i < 150; i++) {
			this.store.add("orders", "anonymous", "client-" + i, i, fixedWindow(60, 30));
		}
		assertThat(buckets(this.endpoint, "orders", null).buckets()).hasSize(100);
	}

	@Test
	void refusesALimitOutsideOneToTenThousandOrNoNumberSayingWhy() {
		for (String limit : List.of("0", "10001", "ten", "1.5")) {
			WebEndpointResponse<Object> response = this.endpoint.buckets("orders", limit).block();
			assertThat(response.getStatus()).isEqualTo(400);
			assertThat(response.getContentType()).hasToString("application/problem+json");
			assertThat(response.getBody()).isEqualTo(new InvalidParameterDescriptor("about:blank", "Bad Request", 400,
					"limit must be a whole number from 1 to 10000, was '" + limit + "'", "limit", limit));
		}
		assertThat(buckets(this.endpoint, "orders", "10000").buckets()).isEmpty();
	}

	@Test
	void unknownPolicyHasNoBuckets() {
		assertThat(this.endpoint.buckets("nope", null).blockOptional()).isEmpty();
		assertThat(this.endpoint.clientBuckets("nope", "k").blockOptional()).isEmpty();
		assertThat(this.endpoint.reset("nope", "k").block().getStatus()).isEqualTo(404);
	}

	@Test
	void readsOneClientsBucketsByRawKey() {
		this.store.add("orders", "anonymous", "demo-free-key", 2, fixedWindow(60, 58))
			.add("orders", "free", "demo-free-key", 5, fixedWindow(10, 5))
			.add("orders", "free", "other", 5, fixedWindow(10, 5));
		ClientBucketsDescriptor client = this.endpoint.clientBuckets("orders", "demo-free-key").block();
		assertThat(client.policy()).isEqualTo("orders");
		assertThat(client.buckets()).extracting(BucketDescriptor::tier).containsExactly("anonymous", "free");
		assertThat(client.buckets()).extracting(BucketDescriptor::key).allMatch((key) -> key.startsWith("demo…"));
	}

	@Test
	void unknownKeyHasNoBuckets() {
		this.store.add("orders", "free", "demo-free-key", 5, fixedWindow(10, 5));
		assertThat(this.endpoint.clientBuckets("orders", "other").blockOptional()).isEmpty();
	}

	@Test
	void resetForgetsTheClientsBuckets() {
		this.store.add("orders", "anonymous", "demo-free-key", 2, fixedWindow(60, 58))
			.add("orders", "free", "demo-free-key", 5, fixedWindow(10, 5))
			.add("orders", "free", "other", 5, fixedWindow(10, 5));
		WebEndpointResponse<Void> response = this.endpoint.reset("orders", "demo-free-key").block();
		assertThat(response.getStatus()).isEqualTo(204);
		assertThat(this.endpoint.clientBuckets("orders", "demo-free-key").blockOptional()).isEmpty();
		assertThat(this.endpoint.clientBuckets("orders", "other").blockOptional()).isPresent();
		assertThat(this.endpoint.reset("orders", "demo-free-key").block().getStatus()).isEqualTo(404);
	}

	@Test
	void policyWhoseStoreIsMissingFailsNamingPolicyAndStore() {
		RateLimitsEndpoint noStore = new RateLimitsEndpoint(TestPolicies.policies(),
				inspecting(new FixedSnapshotsInspector("redis")), this.totals, new KeyMasker(ShowKeys.NEVER, 4), null);
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> noStore.buckets("orders", null))
			.withMessageContaining("ratelimit.policies.orders.store (or ratelimit.store): was caffeine")
			.withMessageContaining("[redis]");
	}

	@Test
	void policyWhoseStoreOnlyDecidesIsListedWithoutBucketsAndSaysWhy() {
		RateLimitsEndpoint decideOnly = new RateLimitsEndpoint(TestPolicies.policies(),
				new BucketStores(List.of(new DecideOnlyStore("caffeine")), List.of()), this.totals,
				new KeyMasker(ShowKeys.NEVER, 4), null);
		PolicyDescriptor orders = decideOnly.rateLimits().block().policies().get("orders");
		assertThat(orders.store()).isEqualTo("caffeine");
		assertThat(orders.liveBuckets()).isNull();
		assertThat(orders.liveBucketsError())
			.isEqualTo("the caffeine store decides requests but cannot be inspected (it implements no BucketInspector)");
		assertThat(decideOnly.buckets("orders", null).blockOptional()).isEmpty();
		assertThat(decideOnly.clientBuckets("orders", "203.0.113.7").blockOptional()).isEmpty();
		assertThat(decideOnly.reset("orders", "203.0.113.7").block().getStatus()).isEqualTo(404);
	}

	private static BucketsDescriptor buckets(RateLimitsEndpoint endpoint, String policy, String limit) {
		return (BucketsDescriptor) endpoint.buckets(policy, limit).block().getBody();
	}

	private static BucketStores inspecting(FixedSnapshotsInspector store) {
		return new BucketStores(List.of(), List.of(store));
	}

	private static RouteDefinition route(String id, String filter) {
		RouteDefinition route = new RouteDefinition();
		route.setId(id);
		route.getFilters().add(new FilterDefinition(filter));
		return route;
	}

}
