package dev.ratelimit.web;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.TierSource;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.testsupport.ScriptedStore;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.http.HttpStatus;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Where a request's tier and cost come from: the API key, a trusted header, a token
 * claim, or the application's resolvers; names no policy lists fall back to the
 * default tier, invalid costs are refused with 400.
 */
class TierAndCostResolutionTests {

	private final RequestPathFixture fixture = new RequestPathFixture();

	@Test
	void withNothingConfiguredTheApiKeyChoosesTheTier() {
		assertThat(limit(this.fixture.run(RequestPathFixture.get().header("X-API-Key", "pro-key")))).isEqualTo("5");
		assertThat(limit(this.fixture.run(RequestPathFixture.get().header("X-API-Key", "made-up")))).isEqualTo("2");
	}

	@Test
	void aTrustedHeaderChoosesTheTierUnknownNamesGetTheDefaultAndNoHeaderTheApiKeys() {
		this.fixture.tierSource = new TierSource.Header("X-Plan");
		assertThat(limit(this.fixture.run(RequestPathFixture.get().header("X-Plan", "pro")))).isEqualTo("5");
		assertThat(limit(this.fixture.run(RequestPathFixture.get().header("X-Plan", "gold")))).isEqualTo("2");
		assertThat(limit(this.fixture.run(RequestPathFixture.get().header("X-API-Key", "pro-key")))).isEqualTo("5");
		assertThat(limit(this.fixture.run(RequestPathFixture.get()))).isEqualTo("2");
		assertThat(this.fixture.forwarded).hasSize(4);
	}

	@Test
	void aTierHeaderAndACostHeaderKeepTheRequestJudgedInLine() {
		ScriptedStore store = new ScriptedStore();
		store.answerNow(() -> Verdict.of(new Decision(true, 1, 5, 60_000_000_000L, 0)));
		this.fixture.store = store;
		this.fixture.tierSource = new TierSource.Header("X-Plan");
		this.fixture.costHeader = "X-Cost";
		MockServerWebExchange exchange = this.fixture.run(RequestPathFixture.get().header("X-Plan", "pro")
			.header("X-Cost", "4"));
		assertThat(exchange.getResponse().getHeaders().getFirst("RateLimit-Remaining")).isEqualTo("1");
		assertThat(store.tiers).containsExactly(RequestPathFixture.PRO);
		assertThat(store.costs).containsExactly(4L);
	}

	@Test
	void aJwtClaimChoosesTheTier() {
		this.fixture.tierSource = new TierSource.Claim("plan");
		assertThat(limit(withToken("plan", "pro"))).isEqualTo("5");
		assertThat(limit(withToken("plan", "gold"))).isEqualTo("2");
		assertThat(limit(withToken("plan", List.of("pro")))).isEqualTo("2");
		assertThat(limit(withToken("scope", "pro"))).isEqualTo("2");
		assertThat(limit(this.fixture.run(RequestPathFixture.get().header("X-API-Key", "pro-key")))).isEqualTo("5");
	}

	@Test
	void aTierResolverReplacesEverySourceAndAFailingOneGivesTheDefaultTier() {
		this.fixture.tierSource = new TierSource.Header("X-Plan");
		this.fixture.tierResolver = (exchange) -> Mono
			.justOrEmpty(exchange.getRequest().getQueryParams().getFirst("plan"));
		assertThat(limit(this.fixture.run(RequestPathFixture.get().queryParam("plan", "pro")))).isEqualTo("5");
		assertThat(limit(this.fixture.run(RequestPathFixture.get().header("X-Plan", "pro")))).isEqualTo("2");
		assertThat(limit(this.fixture.run(RequestPathFixture.get().header("X-API-Key", "pro-key")))).isEqualTo("2");
		this.fixture.store = new CaffeineBucketStore(() -> 0L, 1000);
		this.fixture.tierResolver = (exchange) -> {
			throw new IllegalStateException("directory down");
		};
		MockServerWebExchange failed = this.fixture.run(RequestPathFixture.get());
		assertThat(limit(failed)).isEqualTo("2");
		assertThat(failed.getResponse().getStatusCode()).isNull();
	}

	@Test
	void aCostHeaderSetsTheCostAndARequestWithoutItCostsThePolicysCost() {
		this.fixture.costHeader = "X-Cost";
		this.fixture.key = new KeySource.Route();
		RequestJudge judge = this.fixture.judge();
		MockServerWebExchange one = this.fixture.run(judge,
				MockServerWebExchange.from(RequestPathFixture.get().header("X-API-Key", "pro-key").header("X-Cost",
						"3")));
		assertThat(one.getResponse().getHeaders().getFirst("RateLimit-Remaining")).isEqualTo("2");
		MockServerWebExchange two = this.fixture.run(judge,
				MockServerWebExchange.from(RequestPathFixture.get().header("X-API-Key", "pro-key")));
		assertThat(two.getResponse().getHeaders().getFirst("RateLimit-Remaining")).isEqualTo("1");
	}

	@Test
	void anInvalidCostHeaderIsRefusedWith400NamingTheHeader() {
		this.fixture.costHeader = "X-Cost";
		List<String> details = new ArrayList<>();
		for (String invalid : new String[] { "two", "0", "-1", "3", "1.5", "99999999999999999999999", "" }) {
			MockServerWebExchange exchange = this.fixture.run(RequestPathFixture.get().header("X-Cost", invalid));
			assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
			assertThat(exchange.getResponse().getHeaders().getFirst("Retry-After")).isNull();
			assertThat(exchange.getResponse().getHeaders().getFirst("RateLimit-Remaining")).isNull();
			details.add(exchange.getResponse().getBodyAsString().block());
		}
		assertThat(details).allSatisfy((body) -> assertThat(body)
			.contains("The X-Cost header must be a whole number from 1 to 2, the most one request may cost under this "
					+ "route's rate limit"));
		assertThat(details.get(0)).contains("it was 'two'.");
		assertThat(this.fixture.forwarded).isEmpty();
		assertThat(this.fixture.outcomes).containsOnly(Outcome.INVALID_COST);
	}

	@Test
	void aCostResolverSetsTheCostAndEmptyMeansThePolicysCost() {
		this.fixture.key = new KeySource.Route();
		this.fixture.costResolver = (exchange, policyId) -> exchange.getRequest().getPath().value().endsWith("/bulk")
				? Mono.just(4L) : Mono.empty();
		RequestJudge judge = this.fixture.judge();
		MockServerWebExchange bulk = this.fixture.run(judge, MockServerWebExchange.from(
				MockServerHttpRequest.get("/orders/bulk")
					.header("X-API-Key", "pro-key")));
		assertThat(bulk.getResponse().getHeaders().getFirst("RateLimit-Remaining")).isEqualTo("1");
		MockServerWebExchange single = this.fixture.run(judge,
				MockServerWebExchange.from(RequestPathFixture.get().header("X-API-Key", "pro-key")));
		assertThat(single.getResponse().getHeaders().getFirst("RateLimit-Remaining")).isEqualTo("0");
	}

	@Test
	void aCostResolverAnsweringMoreThanTheTierAdmitsIsRefusedWith400AndBelowOneIsAnError() {
		this.fixture.costResolver = (exchange, policyId) -> Mono.just(3L);
		MockServerWebExchange tooDear = this.fixture.run(RequestPathFixture.get());
		assertThat(tooDear.getResponse().getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
		assertThat(tooDear.getResponse().getBodyAsString().block()).contains(
				"This request costs 3 units, more than the 2 this route's rate limit can ever admit at once.");
		this.fixture.costResolver = (exchange, policyId) -> Mono.just(0L);
		assertThatIllegalStateException().isThrownBy(() -> this.fixture.run(RequestPathFixture.get()))
			.withMessageContaining("answered 0 for policy 'orders'; a cost must be at least 1");
	}

	private MockServerWebExchange withToken(String claim, Object value) {
		Jwt jwt = Jwt.withTokenValue("token")
			.header("alg", "none")
			.subject("alice")
			.claim(claim, value)
			.issuedAt(Instant.EPOCH)
			.build();
		MockServerWebExchange exchange = MockServerWebExchange.from(RequestPathFixture.get());
		this.fixture.run(this.fixture.judge(),
				exchange.mutate().principal(Mono.just(new JwtAuthenticationToken(jwt))).build());
		return exchange;
	}

	private static String limit(MockServerWebExchange exchange) {
		return exchange.getResponse().getHeaders().getFirst("RateLimit-Limit");
	}

}
