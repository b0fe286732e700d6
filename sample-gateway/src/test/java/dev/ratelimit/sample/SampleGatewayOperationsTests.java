package dev.ratelimit.sample;

import java.time.Duration;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's operator session against the sample as shipped: exhaust the demo free
 * key, look at its bucket, reset it; plus the metrics and health the sample exposes.
 * Time stands still, so the token bucket does not refill mid-test.
 */
// Closed after the class: an open context's event loops are the global ones, which
// closing any other context disposes.
@DirtiesContext
@SpringBootTest(webEnvironment = WebEnvironment.DEFINED_PORT)
@Import(FrozenClock.class)
class SampleGatewayOperationsTests {

	private static final int PORT = FreePort.find();

	private WebTestClient client;

	@DynamicPropertySource
	static void port(DynamicPropertyRegistry registry) {
		registry.add("server.port", () -> PORT);
	}

	@BeforeEach
	void client() {
		this.client = WebTestClient.bindToServer()
			.baseUrl("http://localhost:" + PORT)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	@Test
	void exhaustLookAtAndResetTheDemoFreeKey() {
		for (int i = 0; i < 10; i++) {
			order().expectStatus().isOk().expectBody(Void.class);
		}
		order().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS).expectBody(Void.class);
		String listing = this.client.get()
			.uri("/actuator/ratelimits/orders")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		DocumentContext json = JsonPath.parse(listing);
		// echo -n demo-free-key | sha256sum: 9f8cfdb1...
		assertThat(json.read("$.buckets[0].key", String.class)).isEqualTo("demo…9f8cfdb1");
		assertThat(json.read("$.buckets[0].tier", String.class)).isEqualTo("free");
		assertThat(json.read("$.buckets[0].requests", Integer.class)).isEqualTo(11);
		assertThat(json.read("$.buckets[0].limits[0].algorithm", String.class)).isEqualTo("token-bucket");
		assertThat(json.read("$.buckets[0].limits[0].remaining", Integer.class)).isZero();
		assertThat(json.read("$.buckets[0].limits[1].algorithm", String.class)).isEqualTo("fixed-window");
		assertThat(json.read("$.buckets[0].limits[1].remaining", Integer.class)).isEqualTo(9990);
		assertThat(listing).doesNotContain("demo-free-key");
		this.client.get()
			.uri("/actuator/ratelimits/orders/demo-free-key")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.buckets[0].limits[0].remaining").isEqualTo(0);
		this.client.delete()
			.uri("/actuator/ratelimits/orders/demo-free-key")
			.exchange()
			.expectStatus()
			.isNoContent()
			.expectBody(Void.class);
		order().expectStatus().isOk().expectHeader().valueEquals("RateLimit-Remaining", "9").expectBody(Void.class);
	}

	@Test
	void exposesRateLimitMetricsAndHealth() {
		this.client.get().uri("/api/search/shoes").exchange().expectStatus().isOk().expectBody(Void.class);
		this.client.get()
			.uri("/actuator/metrics/ratelimit.requests?tag=policy:search&tag=outcome:allowed")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.measurements[0].value").isEqualTo(1.0);
		this.client.get()
			.uri("/actuator/health/ratelimit")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.status").isEqualTo("UP")
			.jsonPath("$.details.store").isEqualTo("caffeine");
	}

	@Test
	void servesTheDashboard() {
		this.client.get()
			.uri("/actuator/ratelimits-dashboard")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.contentTypeCompatibleWith(MediaType.TEXT_HTML)
			.expectBody(String.class)
			.value((html) -> assertThat(html).contains("<title>Rate limits</title>"));
	}

	/**
	 * Every metric the Grafana dashboard's panels query exists in the sample's scrape,
	 * once traffic has made each appear; those of the Redis-backed stores are
	 * {@link SampleGatewayRedisProfileTests}' to check.
	 */
	@Test
	void theGrafanaDashboardQueriesOnlyMetricsOfTheScrape() {
		DashboardTraffic traffic = new DashboardTraffic(PORT);
		traffic.send();
		assertThat(GrafanaDashboard.sampleNames(traffic.scrape()))
			.containsAll(GrafanaDashboard.load().queriedMetrics(GrafanaDashboard.REDIS_ROW));
	}

	private WebTestClient.ResponseSpec order() {
		return this.client.get().uri("/api/orders/1").header("X-API-Key", "demo-free-key").exchange();
	}

}
