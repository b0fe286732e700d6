package dev.ratelimit.gateway;

import java.net.InetSocketAddress;
import java.security.Principal;

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

class ClientKeyResolverTests {

	private static final String IP = "203.0.113.7";

	private final StaticListableBeanFactory beans = new StaticListableBeanFactory();

	@Test
	void apiKeyUsesTheKnownKeyElseTheClientIp() {
		ClientKeyResolver resolver = resolver(new KeySource.ApiKey());
		assertThat(resolver.resolve(exchange(), "demo-pro-key").block()).isEqualTo("demo-pro-key");
		assertThat(resolver.resolve(exchange(), null).block()).isEqualTo(IP);
	}

	@Test
	void ipUsesTheRemoteAddress() {
		assertThat(resolver(new KeySource.ClientIp()).resolve(exchange(), "demo-pro-key").block()).isEqualTo(IP);
	}

	@Test
	void ipWithoutRemoteAddressIsUnknown() {
		ServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/"));
		assertThat(resolver(new KeySource.ClientIp()).resolve(exchange, null).block()).isEqualTo("unknown");
	}

	@Test
	void routeIsOneKeyPerRoute() {
		assertThat(resolver(new KeySource.Route()).resolve(exchange(), null).block()).isEqualTo("orders-route");
	}

	@Test
	void headerUsesItsValueElseTheClientIp() {
		ClientKeyResolver resolver = resolver(new KeySource.Header("X-Tenant"));
		ServerWebExchange withTenant = MockServerWebExchange
			.from(MockServerHttpRequest.get("/").remoteAddress(remote()).header("X-Tenant", "acme"));
		ServerWebExchange emptyTenant = MockServerWebExchange
			.from(MockServerHttpRequest.get("/").remoteAddress(remote()).header("X-Tenant", ""));
		assertThat(resolver.resolve(withTenant, null).block()).isEqualTo("acme");
		assertThat(resolver.resolve(emptyTenant, null).block()).isEqualTo(IP);
		assertThat(resolver.resolve(exchange(), null).block()).isEqualTo(IP);
	}

	@Test
	void hugeHeaderValuesAreReplacedByTheirDigest() {
		String huge = "x".repeat(10_000);
		ServerWebExchange exchange = MockServerWebExchange
			.from(MockServerHttpRequest.get("/").remoteAddress(remote()).header("X-Tenant", huge));
		String key = resolver(new KeySource.Header("X-Tenant")).resolve(exchange, null).block();
		assertThat(key).startsWith("sha256:").hasSize("sha256:".length() + 64).isEqualTo(BucketId.storedKey(huge));
	}

	@Test
	void principalUsesItsNameElseTheClientIp() {
		ClientKeyResolver resolver = resolver(new KeySource.Principal());
		Principal alice = () -> "alice";
		ServerWebExchange authenticated = exchange().mutate().principal(Mono.just(alice)).build();
		assertThat(resolver.resolve(authenticated, null).block()).isEqualTo("alice");
		assertThat(resolver.resolve(exchange(), null).block()).isEqualTo(IP);
	}

	@Test
	void beanUsesTheKeyResolverElseTheClientIp() {
		KeyResolver tenant = (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Tenant"));
		this.beans.addBean("tenantKeyResolver", tenant);
		ClientKeyResolver resolver = resolver(new KeySource.Bean("tenantKeyResolver"));
		ServerWebExchange withTenant = MockServerWebExchange
			.from(MockServerHttpRequest.get("/").remoteAddress(remote()).header("X-Tenant", "acme"));
		assertThat(resolver.resolve(withTenant, null).block()).isEqualTo("acme");
		assertThat(resolver.resolve(exchange(), null).block()).isEqualTo(IP);
	}

	@Test
	void rejectingPoliciesResolveAMissingKeyToNothing() {
		ClientKeyResolver header = resolver(new KeySource.Header("X-Tenant"), OnMissingKey.REJECT);
		ServerWebExchange emptyTenant = MockServerWebExchange
			.from(MockServerHttpRequest.get("/").remoteAddress(remote()).header("X-Tenant", ""));
		ServerWebExchange withTenant = MockServerWebExchange
			.from(MockServerHttpRequest.get("/").remoteAddress(remote()).header("X-Tenant", "acme"));
		assertThat(header.resolve(exchange(), null).blockOptional()).isEmpty();
		assertThat(header.resolve(emptyTenant, null).blockOptional()).isEmpty();
		assertThat(header.resolve(withTenant, null).block()).isEqualTo("acme");
		ClientKeyResolver principal = resolver(new KeySource.Principal(), OnMissingKey.REJECT);
		Principal nameless = () -> "";
		assertThat(principal.resolve(exchange(), null).blockOptional()).isEmpty();
		assertThat(principal.resolve(exchange().mutate().principal(Mono.just(nameless)).build(), null)
			.blockOptional()).isEmpty();
		this.beans.addBean("nothing", (KeyResolver) (exchange) -> Mono.empty());
		assertThat(resolver(new KeySource.Bean("nothing"), OnMissingKey.REJECT).resolve(exchange(), null)
			.blockOptional()).isEmpty();
		assertThat(resolver(new KeySource.Bean("nothing")).resolve(exchange(), null).block()).isEqualTo(IP);
	}

	private ClientKeyResolver resolver(KeySource source) {
		return resolver(source, OnMissingKey.CLIENT_ADDRESS);
	}

	private ClientKeyResolver resolver(KeySource source, OnMissingKey onMissingKey) {
		return ClientKeyResolver.of(source, "orders-route",
				RateLimitGatewayFilterFactory.gatewayKeyResolvers(this.beans), new ClientAddressResolver(TrustedProxies.NONE),
				onMissingKey);
	}

	private static MockServerWebExchange exchange() {
		return MockServerWebExchange.from(MockServerHttpRequest.get("/").remoteAddress(remote()));
	}

	private static InetSocketAddress remote() {
		return new InetSocketAddress(IP, 50123);
	}

}
