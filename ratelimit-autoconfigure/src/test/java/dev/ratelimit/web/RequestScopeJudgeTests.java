package dev.ratelimit.web;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import dev.ratelimit.policy.ForwardedHeader;
import dev.ratelimit.policy.RequestScope;
import dev.ratelimit.policy.TrustedProxies;
import dev.ratelimit.testsupport.ScriptedStore;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.util.pattern.PathPatternParser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * What a policy applies to, on the request path: a request outside its methods or paths
 * passes as if the route had no policy (no store asked, no headers, no decision told);
 * an exempt one passes uncounted, without headers, told as exempt.
 */
class RequestScopeJudgeTests {

	private final RequestPathFixture fixture = new RequestPathFixture();

	@Test
	void aRequestOutsideThePolicysMethodsPassesUntouched() {
		ScriptedStore store = new ScriptedStore();
		this.fixture.store = store;
		this.fixture.scope = scope(Set.of(HttpMethod.POST), List.of(), List.of(), Set.of(), Set.of());
		RequestJudge judge = this.fixture.judge();
		for (int i = 0; i < 3; i++) {
			MockServerWebExchange get = this.fixture.run(judge, MockServerWebExchange.from(RequestPathFixture.get()));
			assertThat(get.getResponse().getHeaders().headerNames()).isEmpty();
			assertThat(get.getResponse().getStatusCode()).isNull();
		}
		assertThat(this.fixture.forwarded).hasSize(3);
		assertThat(store.ids).isEmpty();
		assertThat(this.fixture.outcomes).isEmpty();
	}

	@Test
	void aRequestOfThePolicysMethodsAndPathsIsLimited() {
		this.fixture.scope = scope(Set.of(HttpMethod.POST), List.of("/orders/**"), List.of(), Set.of(), Set.of());
		RequestJudge judge = this.fixture.judge();
		assertThat(remaining(judge, post("/orders"))).isEqualTo("1");
		assertThat(remaining(judge, post("/orders/7"))).isEqualTo("0");
		assertThat(remaining(judge, post("/elsewhere"))).as("another path").isNull();
		assertThat(remaining(judge, RequestPathFixture.get())).as("another method").isNull();
		assertThat(this.fixture.run(judge, MockServerWebExchange.from(post("/orders"))).getResponse().getStatusCode()
			.value()).isEqualTo(429);
		assertThat(this.fixture.outcomes).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED, Outcome.REJECTED);
	}

	@Test
	void aPathIsMatchedWithinTheContextPathWithoutItsQuery() {
		this.fixture.scope = scope(Set.of(), List.of("/orders"), List.of(), Set.of(), Set.of());
		RequestJudge judge = this.fixture.judge();
		MockServerHttpRequest.BaseBuilder<?> inContext = MockServerHttpRequest.get("/shop/orders?page=2")
			.contextPath("/shop")
			.remoteAddress(new InetSocketAddress("198.51.100.4", 40000));
		assertThat(remaining(judge, inContext)).isEqualTo("1");
	}

	@Test
	void anExemptAddressPassesUncountedAndIsToldAsExempt() {
		this.fixture.scope = scope(Set.of(), List.of(), List.of("198.51.100.0/24"), Set.of(), Set.of());
		RequestJudge judge = this.fixture.judge();
		for (int i = 0; i < 3; i++) {
			MockServerWebExchange exempt = this.fixture.run(judge,
					MockServerWebExchange.from(RequestPathFixture.get()));
			assertThat(exempt.getResponse().getHeaders().headerNames()).isEmpty();
		}
		assertThat(this.fixture.forwarded).hasSize(3);
		assertThat(this.fixture.outcomes).containsExactly(Outcome.EXEMPT, Outcome.EXEMPT, Outcome.EXEMPT);
		assertThat(remaining(judge, from("203.0.113.9"))).as("another client").isEqualTo("1");
	}

	@Test
	void anExemptAddressIsTheClientTheTrustedProxiesName() {
		this.fixture.trustedProxies = new TrustedProxies(List.of(TrustedProxies.Block.parse("10.0.0.0/8")),
				ForwardedHeader.X_FORWARDED_FOR);
		this.fixture.scope = scope(Set.of(), List.of(), List.of("192.0.2.7"), Set.of(), Set.of());
		RequestJudge judge = this.fixture.judge();
		assertThat(remaining(judge, from("10.1.1.1").header("X-Forwarded-For", "192.0.2.7"))).isNull();
		assertThat(remaining(judge, from("10.1.1.1").header("X-Forwarded-For", "192.0.2.7, 192.0.2.8")))
			.as("the right-most untrusted address is the client")
			.isEqualTo("1");
		assertThat(remaining(judge, from("203.0.113.9").header("X-Forwarded-For", "192.0.2.7")))
			.as("a header from an untrusted address is the client's own claim")
			.isEqualTo("1");
		assertThat(this.fixture.outcomes).containsExactly(Outcome.EXEMPT, Outcome.ALLOWED, Outcome.ALLOWED);
	}

	@Test
	void anExemptApiKeyOrTierPassesUncounted() {
		this.fixture.scope = scope(Set.of(), List.of(), List.of(), Set.of("pro-key"), Set.of());
		RequestJudge byKey = this.fixture.judge();
		assertThat(remaining(byKey, RequestPathFixture.get().header("X-API-Key", "pro-key"))).isNull();
		assertThat(remaining(byKey, RequestPathFixture.get().header("X-API-Key", "made-up"))).isEqualTo("1");
		this.fixture.scope = scope(Set.of(), List.of(), List.of(), Set.of(), Set.of("pro"));
		RequestJudge byTier = this.fixture.judge();
		assertThat(remaining(byTier, RequestPathFixture.get().header("X-API-Key", "pro-key"))).isNull();
		assertThat(remaining(byTier, from("203.0.113.9"))).isEqualTo("1");
		assertThat(this.fixture.outcomes).containsExactly(Outcome.EXEMPT, Outcome.ALLOWED, Outcome.EXEMPT,
				Outcome.ALLOWED);
	}

	@Test
	void aKeysJudgeExemptsByApiKeyAndTierAndRefusesWhatItCannotSee() {
		this.fixture.scope = scope(Set.of(), List.of(), List.of(), Set.of("pro-key"), Set.of());
		RequestJudge judge = this.fixture.keysJudge();
		assertThat(judge.judge("pro-key", (allowed, headers) -> allowed + " " + headers.size())
			.block(Duration.ofSeconds(5))).isEqualTo("true 0");
		HttpHeaders counted = judge.judge("someone", (allowed, headers) -> headers).block(Duration.ofSeconds(5));
		assertThat(counted.getFirst("RateLimit-Remaining")).isEqualTo("1");
		assertThat(this.fixture.outcomes).containsExactly(Outcome.EXEMPT, Outcome.ALLOWED);
		for (RequestScope unseen : List.of(scope(Set.of(HttpMethod.POST), List.of(), List.of(), Set.of(), Set.of()),
				scope(Set.of(), List.of("/a"), List.of(), Set.of(), Set.of()),
				scope(Set.of(), List.of(), List.of("10.0.0.0/8"), Set.of(), Set.of()))) {
			this.fixture.scope = unseen;
			assertThatIllegalStateException().isThrownBy(this.fixture::keysJudge)
				.withMessageContaining("Rate limit policy 'orders' applies to some methods or paths only, or exempts "
						+ "client addresses, which a RateLimiter bean never sees");
			assertThat(RequestJudges.judgesKeys(this.fixture.policy())).isFalse();
		}
	}

	private String remaining(RequestJudge judge, MockServerHttpRequest.BaseBuilder<?> request) {
		return this.fixture.run(judge, MockServerWebExchange.from(request))
			.getResponse()
			.getHeaders()
			.getFirst("RateLimit-Remaining");
	}

	private static MockServerHttpRequest.BaseBuilder<?> post(String path) {
		return MockServerHttpRequest.post(path).remoteAddress(new InetSocketAddress("198.51.100.4", 40000));
	}

	private static MockServerHttpRequest.BaseBuilder<?> from(String address) {
		return MockServerHttpRequest.get("/orders").remoteAddress(new InetSocketAddress(address, 40000));
	}

	private static RequestScope scope(Set<HttpMethod> methods, List<String> paths, List<String> addresses,
			Set<String> apiKeys, Set<String> tiers) {
		return new RequestScope(methods, paths.stream().map(PathPatternParser.defaultInstance::parse).toList(),
				addresses.stream().map(TrustedProxies.Block::parse).toList(), apiKeys, tiers);
	}

}
