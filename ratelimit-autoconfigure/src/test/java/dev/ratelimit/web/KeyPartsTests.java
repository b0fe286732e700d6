package dev.ratelimit.web;

import java.net.InetSocketAddress;
import java.net.URI;
import java.security.Principal;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.policy.TrustedProxies;
import dev.ratelimit.store.BucketId;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.http.HttpCookie;
import org.springframework.http.HttpMethod;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.web.server.ServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The keys read part by part: a request's method, path, query parameter, cookie and
 * token claim, alone or together with other keys; what a request lacking a part gets;
 * and that no two combinations of values share a key.
 */
class KeyPartsTests {

	private static final String IP = "203.0.113.7";

	private final StaticListableBeanFactory beans = new StaticListableBeanFactory();

	@Test
	void methodAndPathAreTheRequestsOwnWithinTheContextPathWithoutTheQuery() {
		ServerWebExchange exchange = MockServerWebExchange
			.from(MockServerHttpRequest.post("/shop/orders/7?page=2").contextPath("/shop").remoteAddress(remote()));
		assertThat(key(lookup(new KeySource.Method()), exchange)).contains("POST");
		assertThat(key(lookup(new KeySource.Path()), exchange)).contains("/orders/7");
	}

	@Test
	void aQueryParameterIsItsFirstValueDecodedElseTheClientIpOrNothing() {
		KeyLookup page = lookup(new KeySource.Query("page"));
		assertThat(key(page, request("/?page=a%20b&page=c"))).contains("a b");
		assertThat(key(page, request("/?page="))).contains(IP);
		assertThat(key(page, request("/?other=1"))).contains(IP);
		KeyLookup rejecting = lookup(new KeySource.Query("page"), OnMissingKey.REJECT);
		assertThat(key(rejecting, request("/?page="))).isEmpty();
		assertThat(key(rejecting, request("/?page=3"))).contains("3");
	}

	@Test
	void aCookieIsItsValueElseTheClientIpOrNothing() {
		KeyLookup session = lookup(new KeySource.Cookie("session"));
		ServerWebExchange withCookie = MockServerWebExchange.from(
				MockServerHttpRequest.get("/").remoteAddress(remote()).cookie(new HttpCookie("session", "s-1")));
		assertThat(key(session, withCookie)).contains("s-1");
		assertThat(key(session, request("/"))).contains(IP);
		assertThat(key(lookup(new KeySource.Cookie("session"), OnMissingKey.REJECT), request("/"))).isEmpty();
	}

	@Test
	void aClaimIsAStringClaimOfTheTokenElseTheClientIpOrNothing() {
		KeyLookup tenant = lookup(new KeySource.Claim("tenant"));
		assertThat(key(tenant, withToken("tenant", "acme"))).contains("acme");
		assertThat(key(tenant, withToken("tenant", List.of("acme")))).as("not a string").contains(IP);
		assertThat(key(tenant, withToken("plan", "pro"))).as("no such claim").contains(IP);
		Principal notAToken = () -> "alice";
		assertThat(key(tenant, request("/").mutate().principal(Mono.just(notAToken)).build())).contains(IP);
		assertThat(key(tenant, request("/"))).contains(IP);
		assertThat(key(lookup(new KeySource.Claim("tenant"), OnMissingKey.REJECT), request("/"))).isEmpty();
	}

	@Test
	void aCompositeKeyJoinsItsPartsInOrder() {
		KeyLookup lookup = lookup(composite(new KeySource.ClientIp(), new KeySource.Header("X-Tenant"),
				new KeySource.Method()));
		assertThat(lookup).isInstanceOf(KeyLookup.InRequest.class);
		assertThat(key(lookup, tenant("acme"))).contains(IP + "|acme|GET");
		KeyLookup reversed = lookup(composite(new KeySource.Header("X-Tenant"), new KeySource.ClientIp()));
		assertThat(key(reversed, tenant("acme"))).contains("acme|" + IP);
	}

	@Test
	void noTwoTuplesOfValuesShareAKey() {
		KeyLookup lookup = lookup(composite(new KeySource.Header("X-A"), new KeySource.Header("X-B")));
		String split = key(lookup, headers("x|y", "z")).orElseThrow();
		String otherSplit = key(lookup, headers("x", "y|z")).orElseThrow();
		String escaped = key(lookup, headers("x%7Cy", "z")).orElseThrow();
		assertThat(List.of(split, otherSplit, escaped)).doesNotHaveDuplicates();
		assertThat(split).isEqualTo("x%7Cy|z");
		assertThat(escaped).isEqualTo("x%257Cy|z");
	}

	@Test
	void aLongOrHostileCompositeValueIsKeptAsItsDigest() {
		KeyLookup lookup = lookup(composite(new KeySource.ClientIp(), new KeySource.Header("X-Tenant")));
		String hostile = "{x}:*?[]\\%|".repeat(1_000);
		String key = key(lookup, tenant(hostile)).orElseThrow();
		assertThat(key).startsWith(BucketId.DIGEST_PREFIX).hasSize(BucketId.DIGEST_PREFIX.length() + 64);
		assertThat(key).isEqualTo(BucketId.storedKey(KeyParts.joined(List.of(IP, hostile))));
	}

	@Test
	void aRequestLackingAPartCountsAgainstItsClientAddressAloneOrHasNoKey() {
		KeySource source = composite(new KeySource.Method(), new KeySource.Header("X-Tenant"),
				new KeySource.ApiKey());
		KeyLookup lenient = lookup(source);
		assertThat(key(lenient, tenant("acme"), "known-key")).contains("GET|acme|known-key");
		assertThat(key(lenient, tenant("acme"), null)).as("no known API key").contains(IP);
		assertThat(key(lenient, tenant(""), "known-key")).as("an empty header").contains(IP);
		KeyLookup rejecting = lookup(source, OnMissingKey.REJECT);
		assertThat(key(rejecting, tenant("acme"), null)).isEmpty();
		assertThat(key(rejecting, request("/"), "known-key")).isEmpty();
		assertThat(key(rejecting, tenant("acme"), "known-key")).contains("GET|acme|known-key");
	}

	@Test
	void aCompositeKeyWithAnAwaitedPartIsAwaited() {
		KeySource source = composite(new KeySource.Principal(), new KeySource.Method());
		KeyLookup lookup = lookup(source);
		assertThat(lookup).isInstanceOf(KeyLookup.Awaited.class);
		Principal alice = () -> "alice";
		assertThat(key(lookup, request("/").mutate().principal(Mono.just(alice)).build())).contains("alice|GET");
		assertThat(key(lookup, request("/"))).contains(IP);
		assertThat(key(lookup(source, OnMissingKey.REJECT), request("/"))).isEmpty();
		KeyLookup withClaim = lookup(composite(new KeySource.Claim("tenant"), new KeySource.Path()));
		assertThat(key(withClaim, withToken("tenant", "acme"))).contains("acme|/");
	}

	@Test
	void aKeyResolverBeanMayBeAPartAndItsFailureFailsTheLookup() {
		this.beans.addBean("tenantKeyResolver",
				(KeyResolver) (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Tenant")));
		this.beans.addBean("failing", (KeyResolver) (exchange) -> {
			throw new IllegalStateException("directory down");
		});
		KeyLookup lookup = lookup(composite(new KeySource.ClientIp(), new KeySource.Bean("tenantKeyResolver")));
		assertThat(key(lookup, tenant("acme"))).contains(IP + "|acme");
		assertThat(key(lookup, request("/"))).contains(IP);
		KeyLookup failing = lookup(composite(new KeySource.ClientIp(), new KeySource.Bean("failing")));
		assertThatIllegalStateException().isThrownBy(() -> key(failing, request("/"))).withMessage("directory down");
	}

	@Test
	void theDetailOfARejectionSaysWhatTheRequestLacks() {
		assertThat(KeyParts.missingKeyDetail(new KeySource.Header("X-Tenant"))).isEqualTo("This route is rate limited "
				+ "per client and needs the X-Tenant header to tell clients apart; the request has none.");
		assertThat(KeyParts.missingKeyDetail(new KeySource.Query("page"))).contains("needs the page query parameter");
		assertThat(KeyParts.missingKeyDetail(new KeySource.Cookie("session"))).contains("needs the session cookie");
		assertThat(KeyParts.missingKeyDetail(new KeySource.Claim("tenant")))
			.contains("needs the tenant claim of an OAuth2 token");
		assertThat(KeyParts.missingKeyDetail(new KeySource.Bean("tenantKeyResolver"))).contains("needs a client key");
		assertThat(KeyParts.missingKeyDetail(composite(new KeySource.ClientIp(), new KeySource.Header("X-Tenant"))))
			.contains("needs the X-Tenant header to tell clients apart; the request has none.");
		assertThat(KeyParts.missingKeyDetail(composite(new KeySource.ApiKey(), new KeySource.Method(),
				new KeySource.Principal(), new KeySource.Cookie("session"))))
			.contains("needs a known API key, an authenticated principal and the session cookie to tell clients "
					+ "apart; the request lacks one of them.");
	}

	private KeyLookup lookup(KeySource source) {
		return lookup(source, OnMissingKey.CLIENT_ADDRESS);
	}

	private KeyLookup lookup(KeySource source, OnMissingKey onMissingKey) {
		KeyResolverBeans keyResolvers = (beanName) -> this.beans.getBean(beanName, KeyResolver.class)::resolve;
		return KeyLookup.of(source, "orders-route", keyResolvers, new ClientAddressResolver(TrustedProxies.NONE),
				onMissingKey);
	}

	private static KeySource composite(KeySource... parts) {
		return new KeySource.Composite(List.of(parts));
	}

	private static Optional<String> key(KeyLookup lookup, ServerWebExchange exchange) {
		return key(lookup, exchange, null);
	}

	/**
	 * The key a lookup finds, read at once or awaited.
	 */
	private static Optional<String> key(KeyLookup lookup, ServerWebExchange exchange, String knownApiKey) {
		if (lookup instanceof KeyLookup.InRequest inRequest) {
			return Optional.ofNullable(inRequest.read(exchange, knownApiKey));
		}
		return ((KeyLookup.Awaited) lookup).resolve(exchange, knownApiKey).blockOptional();
	}

	/**
	 * A GET of {@code uri} as written, encoded as it is.
	 */
	private static ServerWebExchange request(String uri) {
		return MockServerWebExchange
			.from(MockServerHttpRequest.method(HttpMethod.GET, URI.create(uri)).remoteAddress(remote()));
	}

	private static ServerWebExchange tenant(String tenant) {
		return MockServerWebExchange
			.from(MockServerHttpRequest.get("/").remoteAddress(remote()).header("X-Tenant", tenant));
	}

	private static ServerWebExchange headers(String a, String b) {
		return MockServerWebExchange
			.from(MockServerHttpRequest.get("/").remoteAddress(remote()).header("X-A", a).header("X-B", b));
	}

	private static ServerWebExchange withToken(String claim, Object value) {
		Jwt jwt = Jwt.withTokenValue("token")
			.header("alg", "none")
			.subject("alice")
			.claim(claim, value)
			.issuedAt(Instant.EPOCH)
			.build();
		return request("/").mutate().principal(Mono.just(new JwtAuthenticationToken(jwt))).build();
	}

	private static InetSocketAddress remote() {
		return new InetSocketAddress(IP, 50123);
	}

}
