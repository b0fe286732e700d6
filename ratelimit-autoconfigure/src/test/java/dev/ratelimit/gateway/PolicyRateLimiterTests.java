package dev.ratelimit.gateway;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketStore;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.support.ManualClock;
import dev.ratelimit.web.HeaderStyle;
import dev.ratelimit.web.Outcome;
import dev.ratelimit.web.RateLimitListener;
import dev.ratelimit.web.RateLimitMessages;
import dev.ratelimit.web.RateLimitProblemWriter;
import dev.ratelimit.web.HeldRequests;
import dev.ratelimit.web.RequestJudges;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter.Response;
import org.springframework.http.codec.ServerCodecConfigurer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

class PolicyRateLimiterTests {

	private static final Tier ANONYMOUS = new Tier("anonymous", List.of(new FixedWindow(1, Duration.ofMinutes(1))));

	private static final Tier PRO = new Tier("pro", List.of(new FixedWindow(3, Duration.ofMinutes(1))));

	private final ManualClock clock = new ManualClock();

	private final List<Outcome> outcomes = new ArrayList<>();

	@Test
	void headersAreTheRateLimitFiltersInTheConfiguredStyle() {
		PolicyRateLimiter limiter = limiter(false, HeaderStyle.DRAFT_11, caffeine());
		this.clock.advanceToMultipleOf(Duration.ofMinutes(1));
		Response allowed = limiter.isAllowed("route", "alice").block();
		assertThat(allowed.isAllowed()).isTrue();
		assertThat(allowed.getHeaders()).containsOnly(
				Map.entry("RateLimit-Policy", "\"orders-anonymous-1\";q=1;w=60"),
				Map.entry("RateLimit", "\"orders-anonymous-1\";r=0;t=60"));
		Response rejected = limiter.isAllowed("route", "alice").block();
		assertThat(rejected.isAllowed()).isFalse();
		assertThat(rejected.getHeaders()).containsEntry("Retry-After", "60")
			.containsEntry("RateLimit", "\"orders-anonymous-1\";r=0;t=60");
		assertThat(this.outcomes).containsExactly(Outcome.ALLOWED, Outcome.REJECTED);
	}

	@Test
	void anIdThatIsAKnownApiKeyIsJudgedInItsTier() {
		PolicyRateLimiter limiter = limiter(false, HeaderStyle.DRAFT_06, caffeine());
		for (int i = 0; i < 3; i++) {
			Response response = limiter.isAllowed("route", "pro-key").block();
			assertThat(response.isAllowed()).isTrue();
			assertThat(response.getHeaders()).containsEntry("RateLimit-Limit", "3");
		}
		assertThat(limiter.isAllowed("route", "pro-key").block().isAllowed()).isFalse();
	}

	@Test
	void aShadowPolicyAllowsWhatItWouldRejectAndStillReports() {
		PolicyRateLimiter limiter = limiter(true, HeaderStyle.DRAFT_06, caffeine());
		limiter.isAllowed("route", "alice").block();
		Response overLimit = limiter.isAllowed("route", "alice").block();
		assertThat(overLimit.isAllowed()).isTrue();
		assertThat(overLimit.getHeaders()).containsEntry("RateLimit-Remaining", "0").doesNotContainKey("Retry-After");
		assertThat(this.outcomes).containsExactly(Outcome.ALLOWED, Outcome.SHADOW_REJECTED);
	}

	@Test
	void aFailingStoreLetsTheRequestThroughWithoutHeaders() {
		BucketStore failing = mock(BucketStore.class);
		given(failing.name()).willReturn("caffeine");
		given(failing.acquire(any(BucketId.class), any(Tier.class), anyLong()))
			.willReturn(Mono.error(new IllegalStateException("store down")));
		Response response = limiter(false, HeaderStyle.DRAFT_06, failing).isAllowed("route", "alice").block();
		assertThat(response.isAllowed()).isTrue();
		assertThat(response.getHeaders()).isEmpty();
		assertThat(this.outcomes).containsExactly(Outcome.ERROR);
	}

	@Test
	void anUnknownPolicyIsAConfigurationError() {
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> PolicyRateLimiter.of(judges(false, HeaderStyle.DRAFT_06, caffeine()), "oders"))
			.withMessageContaining("rate limiter bean 'odersRateLimiter'")
			.withMessageContaining("(defined: [orders])");
	}

	@Test
	void aRequestRateLimiterDefinitionNamesThePolicyOfItsRateLimiterBean() {
		assertThat(FilterDefinitions.rateLimiterPolicy(requestRateLimiter("#{@ordersRateLimiter}"))).isEqualTo("orders");
		assertThat(FilterDefinitions.rateLimiterPolicy(requestRateLimiter("#{@'public-apiRateLimiter'}")))
			.isEqualTo("public-api");
		assertThat(FilterDefinitions.rateLimiterPolicy(requestRateLimiter("#{@redisRateLimiter}"))).isEqualTo("redis");
		assertThat(FilterDefinitions.rateLimiterPolicy(requestRateLimiter("#{@myLimiter}"))).isNull();
		assertThat(FilterDefinitions.rateLimiterPolicy(requestRateLimiter("#{@RateLimiter}"))).isNull();
		assertThat(FilterDefinitions.rateLimiterPolicy(new FilterDefinition("RequestRateLimiter"))).isNull();
		assertThat(FilterDefinitions.rateLimiterPolicy(new FilterDefinition("RateLimit=orders"))).isNull();
	}

	@Test
	void aReloadAppliesNewLimitsAndApiKeyMappingsFromOneSnapshotToTheNextRequest() {
		PolicyRateLimiter limiter = limiter(false, HeaderStyle.DRAFT_06, caffeine());
		this.clock.advanceToMultipleOf(Duration.ofMinutes(1));
		assertThat(limiter.isAllowed("route", "alice").block().getHeaders()).containsEntry("RateLimit-Limit", "1");
		assertThat(limiter.isAllowed("route", "alice").block().isAllowed()).isFalse();
		Tier raised = new Tier("anonymous", List.of(new FixedWindow(5, Duration.ofMinutes(1))));
		limiter.reload(new RateLimitPolicies(Map.of("orders", orders(raised)), Map.of("alice", "pro")));
		Response afterReload = limiter.isAllowed("route", "alice").block();
		assertThat(afterReload.isAllowed()).isTrue();
		assertThat(afterReload.getHeaders()).containsEntry("RateLimit-Limit", "3");
		assertThat(limiter.isAllowed("route", "bob").block().getHeaders()).containsEntry("RateLimit-Limit", "5");
		assertThat(limiter.newConfig().defaultTier()).isSameAs(raised);
	}

	@Test
	void aReloadThatRemovesThePolicyLeavesTheLimiterWithItsLastSettings() {
		PolicyRateLimiter limiter = limiter(false, HeaderStyle.DRAFT_06, caffeine());
		this.clock.advanceToMultipleOf(Duration.ofMinutes(1));
		assertThat(limiter.isAllowed("route", "alice").block().isAllowed()).isTrue();
		limiter.reload(new RateLimitPolicies(Map.of(), Map.of()));
		Response rejected = limiter.isAllowed("route", "alice").block();
		assertThat(rejected.isAllowed()).isFalse();
		assertThat(rejected.getHeaders()).containsEntry("RateLimit-Limit", "1");
		assertThat(limiter.policyId()).isEqualTo("orders");
	}

	private static FilterDefinition requestRateLimiter(String rateLimiter) {
		FilterDefinition definition = new FilterDefinition("RequestRateLimiter");
		definition.addArg("rate-limiter", rateLimiter);
		return definition;
	}

	private CaffeineBucketStore caffeine() {
		return new CaffeineBucketStore(this.clock, 100);
	}

	private PolicyRateLimiter limiter(boolean shadow, HeaderStyle style, BucketStore store) {
		return PolicyRateLimiter.of(judges(shadow, style, store), "orders");
	}

	private static RateLimitPolicy orders(Tier anonymous) {
		return new RateLimitPolicy("orders", new KeySource.ApiKey(), false, 1, StoreType.CAFFEINE,
				Map.of("anonymous", anonymous, "pro", PRO), anonymous);
	}

	private RequestJudges judges(boolean shadow, HeaderStyle style, BucketStore store) {
		RateLimitPolicy orders = new RateLimitPolicy("orders", new KeySource.ApiKey(), shadow, 1, StoreType.CAFFEINE,
				Map.of("anonymous", ANONYMOUS, "pro", PRO), ANONYMOUS);
		RateLimitPolicies policies = new RateLimitPolicies(Map.of("orders", orders), Map.of("pro-key", "pro"));
		RateLimitListener listener = (policy, tier, routeId, storeName, outcome, nanos) -> this.outcomes.add(outcome);
		return new RequestJudges(policies,
				new BucketStores(List.of(store), List.of(store)), List.of(listener), style, "X-API-Key",
				new RateLimitProblemWriter(ServerCodecConfigurer.create().getWriters(),
						URI.create("https://example.com/problems/rate-limited")),
				null, null, RateLimitMessages.DEFAULTS, new HeldRequests(10_000));
	}

}
