package dev.ratelimit.actuate;

import dev.ratelimit.actuate.gateway.ActuatorGatewayApplication;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * End-to-end tests of the {@code ratelimits} endpoint with its default access, read
 * only: buckets can be read but never reset.
 */
@SpringBootTest(classes = ActuatorGatewayApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT)
@AutoConfigureWebTestClient
@ActiveProfiles("actuator")
class RateLimitsEndpointReadOnlyGatewayTests {

	@Autowired
	private WebTestClient client;

	@Test
	void readsButNeverResets() {
		this.client.get()
			.uri("/orders")
			.header("X-API-Key", "reset-key")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(Void.class);
		expectStatus(HttpMethod.GET, "/actuator/ratelimits/orders/reset-key", HttpStatus.OK);
		expectStatus(HttpMethod.DELETE, "/actuator/ratelimits/orders/reset-key", HttpStatus.METHOD_NOT_ALLOWED);
		expectStatus(HttpMethod.DELETE, "/actuator/ratelimits/orders/reset-key/block", HttpStatus.NOT_FOUND);
		expectStatus(HttpMethod.GET, "/actuator/ratelimits/orders/reset-key", HttpStatus.OK);
	}

	private void expectStatus(HttpMethod method, String uri, HttpStatus status) {
		this.client.method(method).uri(uri).exchange().expectStatus().isEqualTo(status).expectBody(Void.class);
	}

}
