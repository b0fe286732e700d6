package dev.ratelimit.web;

import java.net.InetSocketAddress;
import java.security.Principal;
import java.util.Optional;

import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.policy.TrustedProxies;
import dev.ratelimit.store.BucketId;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.server.ServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;

class KeyLookupTests {

	private static final String IP = "203.0.113.7";

	private final StaticListableBeanFactory beans = new StaticListableBeanFactory();

	@Test
	void apiKeyUsesTheKnownKeyElseTheClientIp() {
		KeyLookup lookup = lookup(new KeySource.ApiKey());
		assertThat(key(lookup, exchange(), "demo-pro-key").orElse(null)).isEqualTo("demo-pro-key");
		assertThat(key(lookup, exchange(), null).orElse(null)).isEqualTo(IP);
	}

	@Test
	void ipUsesTheRemoteAddress() {
		assertThat(key(lookup(new KeySource.ClientIp()), exchange(), "demo-pro-key").orElse(null)).isEqualTo(IP);
	}

	@Test
	void ipWithoutRemoteAddressIsUnknown() {
		ServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/"));
		assertThat(key(lookup(new KeySource.ClientIp()), exchange, null).orElse(null)).isEqualTo("unknown");
	}

	@Test
	void routeIsOneKeyPerRoute() {
		assertThat(key(lookup(new KeySource.Route()), exchange(), null).orElse(null)).isEqualTo("orders-route");
	}

	@Test
	void headerUsesItsValueElseTheClientIp() {
		KeyLookup lookup = lookup(new KeySource.Header("X-Tenant"));
		ServerWebExchange withTenant = MockServerWebExchange
			.from(MockServerHttpRequest.get("/").remoteAddress(remote()).header("X-Tenant", "acme"));
		ServerWebExchange emptyTenant = MockServerWebExchange
			.from(MockServerHttpRequest.get("/").remoteAddress(remote()).header("X-Tenant", ""));
		assertThat(key(lookup, withTenant, null).orElse(null)).isEqualTo("acme");
		assertThat(key(lookup, emptyTenant, null).orElse(null)).isEqualTo(IP);
		assertThat(key(lookup, exchange(), null).orElse(null)).isEqualTo(IP);
	}

	@Test
	void hugeHeaderValuesAreReplacedByTheirDigest() {
		String huge = "x".repeat(10_000);
		ServerWebExchange exchange = MockServerWebExchange
			.from(MockServerHttpRequest.get("/").remoteAddress(remote()).header("X-Tenant", huge));
		String key = key(lookup(new KeySource.Header("X-Tenant")), exchange, null).orElse(null);
		assertThat(key).startsWith("sha256:").hasSize("sha256:".length() + 64).isEqualTo(BucketId.storedKey(huge));
	}

	@Test
	void principalUsesItsNameElseTheClientIp() {
		KeyLookup lookup = lookup(new KeySource.Principal());
		Principal alice = () -> "alice";
		ServerWebExchange authenticated = exchange().mutate().principal(Mono.just(alice)).build();
		assertThat(key(lookup, authenticated, null).orElse(null)).isEqualTo("alice");
		assertThat(key(lookup, exchange(), null).orElse(null)).isEqualTo(IP);
	}

	@Test
	void beanUsesTheKeyResolverElseTheClientIp() {
		KeyResolver tenant = (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Tenant"));
		this.beans.addBean("tenantKeyResolver", tenant);
		KeyLookup lookup = lookup(new KeySource.Bean("tenantKeyResolver"));
		ServerWebExchange withTenant = MockServerWebExchange
			.from(MockServerHttpRequest.get("/").remoteAddress(remote()).header("X-Tenant", "acme"));
		assertThat(key(lookup, withTenant, null).orElse(null)).isEqualTo("acme");
		assertThat(key(lookup, exchange(), null).orElse(null)).isEqualTo(IP);
	}

	@Test
	void rejectingPoliciesResolveAMissingKeyToNothing() {
		KeyLookup header = lookup(new KeySource.Header("X-Tenant"), OnMissingKey.REJECT);
		ServerWebExchange emptyTenant = MockServerWebExchange
			.from(MockServerHttpRequest.get("/").remoteAddress(remote()).header("X-Tenant", ""));
		ServerWebExchange withTenant = MockServerWebExchange
			.from(MockServerHttpRequest.get("/").remoteAddress(remote()).header("X-Tenant", "acme"));
		assertThat(key(header, exchange(), null)).isEmpty();
		assertThat(key(header, emptyTenant, null)).isEmpty();
		assertThat(key(header, withTenant, null).orElse(null)).isEqualTo("acme");
		KeyLookup principal = lookup(new KeySource.Principal(), OnMissingKey.REJECT);
		Principal nameless = () -> "";
		assertThat(key(principal, exchange(), null)).isEmpty();
		assertThat(key(principal, exchange().mutate().principal(Mono.just(nameless)).build(), null)).isEmpty();
		this.beans.addBean("nothing", (KeyResolver) (exchange) -> Mono.empty());
		assertThat(key(lookup(new KeySource.Bean("nothing"), OnMissingKey.REJECT), exchange(), null)).isEmpty();
		assertThat(key(lookup(new KeySource.Bean("nothing")), exchange(), null).orElse(null)).isEqualTo(IP);
	}

	private KeyLookup lookup(KeySource source) {
		return lookup(source, OnMissingKey.CLIENT_ADDRESS);
	}

	private KeyLookup lookup(KeySource source, OnMissingKey onMissingKey) {
		KeyResolverBeans keyResolvers = (beanName) -> this.beans.getBean(beanName, KeyResolver.class)::resolve;
		return KeyLookup.of(source, "orders-route", keyResolvers, new ClientAddressResolver(TrustedProxies.NONE),
				onMissingKey);
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

	private static MockServerWebExchange exchange() {
		return MockServerWebExchange.from(MockServerHttpRequest.get("/").remoteAddress(remote()));
	}

	private static InetSocketAddress remote() {
		return new InetSocketAddress(IP, 50123);
	}

}
