package dev.ratelimit.actuate;

import dev.ratelimit.actuate.gateway.ActuatorGatewayApplication;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * End-to-end tests of a gateway that does not expose the {@code ratelimits} endpoint.
 */
@SpringBootTest(classes = ActuatorGatewayApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "management.endpoints.web.exposure.include=health")
@AutoConfigureWebTestClient
@ActiveProfiles("actuator")
class RateLimitsEndpointNotExposedGatewayTests {

	@Autowired
	private WebTestClient client;

	@Test
	void endpointIsNotThere() {
		this.client.get().uri("/actuator/ratelimits").exchange().expectStatus().isNotFound().expectBody(Void.class);
		this.client.get()
			.uri("/actuator/ratelimits/orders")
			.exchange()
			.expectStatus()
			.isNotFound()
			.expectBody(Void.class);
	}

	@Test
	void gatewayStillLimits() {
		for (int i = 0; i < 3; i++) {
			this.client.get()
				.uri("/orders")
				.header("X-API-Key", "listing-key")
				.exchange()
				.expectStatus()
				.isOk()
				.expectBody(Void.class);
		}
		this.client.get()
			.uri("/orders")
			.header("X-API-Key", "listing-key")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectBody(Void.class);
	}

}
