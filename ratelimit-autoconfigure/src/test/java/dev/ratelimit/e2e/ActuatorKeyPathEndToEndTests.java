package dev.ratelimit.e2e;

import java.net.URI;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.store.BucketId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ratelimits} endpoint's {@code {key}} selector takes a client's key from
 * the URL: it addresses that key's buckets and nothing else, whatever the key holds.
 */
class ActuatorKeyPathEndToEndTests {

	private static final String LONG_KEY = "k".repeat(300);

	private static final Upstream upstream = Upstream.start();

	private static GatewayRunner gateway;

	@BeforeAll
	static void startGateway() {
		gateway = GatewayRunner.start("ratelimit.policies.by-client.key=header:X-Client",
				"ratelimit.policies.by-client.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.by-client.tiers.anonymous[0].limit=1",
				"ratelimit.policies.by-client.tiers.anonymous[0].window=1d", "ratelimit.actuator.show-keys=always",
				"management.endpoints.web.exposure.include=ratelimits",
				"management.endpoint.ratelimits.access=unrestricted",
				"spring.cloud.gateway.server.webflux.routes[0].id=c",
				"spring.cloud.gateway.server.webflux.routes[0].uri=" + upstream.uri(),
				"spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/c/**",
				"spring.cloud.gateway.server.webflux.routes[0].filters[0]=RateLimit=by-client");
		for (String key : List.of("victim", "*", "?", "a/b", "..", "%2A", LONG_KEY)) {
			send(key, HttpStatus.OK);
		}
	}

	@AfterAll
	static void stop() {
		gateway.close();
		upstream.close();
	}

	@Test
	void aGlobLikeKeyReadsAndResetsOnlyItself() {
		assertThat(keysAt("/actuator/ratelimits/by-client/%2A")).containsExactly("*");
		assertThat(keysAt("/actuator/ratelimits/by-client/%3F")).containsExactly("?");
		assertThat(keysAt("/actuator/ratelimits/by-client/%252A")).containsExactly("%2A");
		expectStatus(HttpMethod.DELETE, "/actuator/ratelimits/by-client/%2A", HttpStatus.NO_CONTENT);
		expectStatus(HttpMethod.DELETE, "/actuator/ratelimits/by-client/%2A", HttpStatus.NOT_FOUND);
		send("*", HttpStatus.OK);
		send("victim", HttpStatus.TOO_MANY_REQUESTS);
		send("?", HttpStatus.TOO_MANY_REQUESTS);
		send("%2A", HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void pathTricksAddressNoOtherBucketAndNoOtherEndpoint() {
		assertThat(keysAt("/actuator/ratelimits/by-client/a%2Fb")).containsExactly("a/b");
		assertThat(keysAt("/actuator/ratelimits/by-client/..")).containsExactly("..");
		expectStatus(HttpMethod.GET, "/actuator/ratelimits/by-client/..%2F..%2Fhealth", HttpStatus.NOT_FOUND);
		expectStatus(HttpMethod.GET, "/actuator/ratelimits/by-client/vic*", HttpStatus.NOT_FOUND);
		expectStatus(HttpMethod.GET, "/actuator/ratelimits/by-client/%00", HttpStatus.NOT_FOUND);
		expectStatus(HttpMethod.DELETE, "/actuator/ratelimits/by-client/..%2Fvictim", HttpStatus.NOT_FOUND);
		send("victim", HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void aLongKeyIsFoundByItselfAndByTheDigestItIsKeptAs() {
		String digest = BucketId.storedKey(LONG_KEY);
		assertThat(keysAt("/actuator/ratelimits/by-client/" + LONG_KEY)).containsExactly(digest);
		assertThat(keysAt("/actuator/ratelimits/by-client/" + digest)).containsExactly(digest);
	}

	private static List<String> keysAt(String path) {
		String body = gateway.client()
			.get()
			.uri(URI.create(base() + path))
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		return JsonPath.parse(body).read("$.buckets[*].key");
	}

	private static void expectStatus(HttpMethod method, String path, HttpStatus expected) {
		gateway.client()
			.method(method)
			.uri(URI.create(base() + path))
			.exchange()
			.expectStatus()
			.isEqualTo(expected)
			.expectBody(Void.class);
	}

	private static void send(String key, HttpStatus expected) {
		WebTestClient client = gateway.client();
		client.get()
			.uri("/c/x")
			.header("X-Client", key)
			.exchange()
			.expectStatus()
			.isEqualTo(expected)
			.expectBody(Void.class);
	}

	private static String base() {
		return "http://127.0.0.1:" + gateway.port();
	}

}
