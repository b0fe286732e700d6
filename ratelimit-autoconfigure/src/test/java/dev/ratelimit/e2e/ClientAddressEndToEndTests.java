package dev.ratelimit.e2e;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code key: ip} over real connections from 127.0.0.1: a forwarding header counts only
 * when 127.0.0.1 is a trusted proxy, and then only its right-most untrusted address.
 */
class ClientAddressEndToEndTests {

	private static final Upstream upstream = Upstream.start();

	private static GatewayRunner trusting;

	private static GatewayRunner untrusting;

	@BeforeAll
	static void startGateways() {
		trusting = GatewayRunner.start(properties("ratelimit.trusted-proxies[0]=127.0.0.0/8",
				"ratelimit.trusted-proxies[1]=::1"));
		untrusting = GatewayRunner.start(properties());
	}

	@AfterAll
	static void stop() {
		trusting.close();
		untrusting.close();
		upstream.close();
	}

	@Test
	void behindATrustedProxyEachForwardedClientHasItsOwnQuota() {
		WebTestClient client = trusting.client();
		assertThat(status(client, "/ip/a", "198.51.100.1")).isEqualTo(HttpStatus.OK);
		assertThat(status(client, "/ip/a", "198.51.100.1")).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(status(client, "/ip/a", "198.51.100.2")).isEqualTo(HttpStatus.OK);
	}

	@Test
	void aClientPrependingForgedAddressesStillGetsItsOwnQuota() {
		WebTestClient client = trusting.client();
		assertThat(status(client, "/ip/b", "198.51.100.30")).isEqualTo(HttpStatus.OK);
		// The client wrote what is left of its own address; the proxy appended its address.
		for (String forged : new String[] { "192.0.2.1, 198.51.100.30", "127.0.0.1, 198.51.100.30",
				"198.51.100.31, 198.51.100.30", "garbage, 198.51.100.30" }) {
			assertThat(status(client, "/ip/b", forged)).as(forged).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		}
		assertThat(upstream.hits("/ip/b")).isEqualTo(1);
	}

	@Test
	void fromAnUntrustedAddressForgedHeadersChangeNothing() {
		WebTestClient client = untrusting.client();
		assertThat(status(client, "/ip/c", "198.51.100.40")).isEqualTo(HttpStatus.OK);
		for (String forged : new String[] { "198.51.100.41", "198.51.100.42", "10.0.0.1, 198.51.100.43", "::1" }) {
			assertThat(status(client, "/ip/c", forged)).as(forged).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		}
	}

	private static HttpStatus status(WebTestClient client, String path, String xForwardedFor) {
		return HttpStatus.valueOf(client.get()
			.uri(path)
			.header("X-Forwarded-For", xForwardedFor)
			.exchange()
			.returnResult(Void.class)
			.getStatus()
			.value());
	}

	private static String[] properties(String... more) {
		String[] common = { "ratelimit.policies.ip.key=ip",
				"ratelimit.policies.ip.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.ip.tiers.anonymous[0].limit=1",
				"ratelimit.policies.ip.tiers.anonymous[0].window=1m",
				"spring.cloud.gateway.server.webflux.routes[0].id=ip",
				"spring.cloud.gateway.server.webflux.routes[0].uri=" + upstream.uri(),
				"spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/ip/**",
				"spring.cloud.gateway.server.webflux.routes[0].filters[0]=RateLimit=ip" };
		String[] all = new String[common.length + more.length];
		System.arraycopy(common, 0, all, 0, common.length);
		System.arraycopy(more, 0, all, common.length, more.length);
		return all;
	}

}
