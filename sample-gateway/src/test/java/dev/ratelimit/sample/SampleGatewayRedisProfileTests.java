package dev.ratelimit.sample;

import java.io.IOException;
import java.io.UncheckedIOException;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import redis.embedded.RedisServer;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.http.HttpStatus;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Boots the sample with its {@code redis} profile against an embedded Redis (on a free
 * port instead of 6379): the buckets live in Redis.
 */
// Closed after the class: an open context's event loops are the global ones, which
// closing any other context disposes.
@DirtiesContext
@SpringBootTest(webEnvironment = WebEnvironment.DEFINED_PORT)
@ActiveProfiles("redis")
class SampleGatewayRedisProfileTests {

	private static final int PORT = FreePort.find();

	private static final RedisServer redis = startRedis();

	@Autowired
	private ReactiveStringRedisTemplate template;

	@DynamicPropertySource
	static void ports(DynamicPropertyRegistry registry) {
		registry.add("server.port", () -> PORT);
		registry.add("spring.data.redis.port", () -> redis.ports().get(0));
	}

	@AfterAll
	static void stopRedis() throws IOException {
		redis.stop();
	}

	@Test
	void ordersAreLimitedInRedis() {
		WebTestClient client = WebTestClient.bindToServer().baseUrl("http://localhost:" + PORT).build();
		for (int remaining = 4; remaining >= 0; remaining--) {
			client.get()
				.uri("/api/orders/1")
				.exchange()
				.expectStatus()
				.isOk()
				.expectHeader()
				.valueEquals("RateLimit-Remaining", Integer.toString(remaining))
				.expectBody(Void.class);
		}
		client.get()
			.uri("/api/orders/1")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectBody(Void.class);
		assertThat(this.template.scan(ScanOptions.scanOptions().match("rl:{orders:*").build()).collectList().block())
			.isNotEmpty();
	}

	@Test
	void searchIsLimitedByTheHybridStore() {
		WebTestClient client = WebTestClient.bindToServer().baseUrl("http://localhost:" + PORT).build();
		int admitted = 0;
		for (int i = 0; i < 15; i++) {
			int status = client.get().uri("/api/search?q=" + i).exchange().returnResult(Void.class).getStatus().value();
			assertThat(status).as("request %d", i).isIn(200, 429);
			if (status == 200) {
				admitted++;
			}
		}
		// docs/redis.md: a hybrid node never admits more than the limit within a window
		// (its leases come out of the Redis bucket), so 10 here; it need not be exact.
		assertThat(admitted).isBetween(1, 10);
		assertThat(requests(client, "allowed")).isEqualTo(admitted);
		assertThat(requests(client, "rejected")).isEqualTo(15 - admitted);
		// Decided by the hybrid store, never by the local fallback of on-failure.
		assertThat(requests(client, "error")).isZero();
		assertThat(this.template.scan(ScanOptions.scanOptions().match("rl:{search:*").build()).collectList().block())
			.as("the search bucket leased from Redis")
			.isNotEmpty();
		client.get()
			.uri("/actuator/health/ratelimit")
			.exchange()
			.expectBody()
			.jsonPath("$.components.hybrid.status")
			.isEqualTo("UP");
	}

	/**
	 * Every metric the Grafana dashboard's panels query exists in the scrape of the sample
	 * on its redis profile, those of the Redis-backed stores included, once traffic has made
	 * each appear.
	 */
	@Test
	void theGrafanaDashboardQueriesOnlyMetricsOfTheScrape() {
		DashboardTraffic traffic = new DashboardTraffic(PORT);
		traffic.send();
		assertThat(GrafanaDashboard.sampleNames(traffic.scrape()))
			.containsAll(GrafanaDashboard.load().queriedMetrics());
	}

	private static int requests(WebTestClient client, String outcome) {
		Double count = JsonPath.parse(client.get()
			.uri("/actuator/metrics/ratelimit.requests?tag=policy:search&tag=outcome:" + outcome)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody()).read("$.measurements[0].value", Double.class);
		return count.intValue();
	}

	private static RedisServer startRedis() {
		try {
			RedisServer server = RedisServer.newRedisServer().port(FreePort.find()).bind("127.0.0.1").build();
			server.start();
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
