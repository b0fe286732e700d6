package dev.ratelimit.sample;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Boots the sample as shipped (its routes forward to its own upstream on its own port)
 * and proves that it limits. Time stands still, so no window rolls over mid-test.
 */
// Closed after the class: an open context's event loops are the global ones, which
// closing any other context disposes.
@DirtiesContext
@SpringBootTest(webEnvironment = WebEnvironment.DEFINED_PORT)
@Import(FrozenClock.class)
class SampleGatewayApplicationTests {

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
	void anonymousOrdersAreLimitedToFivePerMinute() {
		for (int remaining = 4; remaining >= 0; remaining--) {
			this.client.get()
				.uri("/api/orders/42")
				.exchange()
				.expectStatus()
				.isOk()
				.expectHeader()
				.valueEquals("RateLimit-Limit", "5")
				.expectHeader()
				.valueEquals("RateLimit-Remaining", Integer.toString(remaining))
				.expectBody()
				.jsonPath("$.path")
				.isEqualTo("/upstream/orders/42");
		}
		this.client.get()
			.uri("/api/orders/42")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader()
			.exists("Retry-After")
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectHeader()
			.valueEquals("RateLimit-Reset", "60")
			.expectHeader()
			.valueEquals("Retry-After", "60")
			.expectBody()
			.jsonPath("$.type")
			.isEqualTo("https://iana.org/assignments/http-problem-types#quota-exceeded")
			.jsonPath("$.detail")
			.isEqualTo("You have exceeded the rate limit of 5 requests per minute.")
			.jsonPath("$.instance")
			.isEqualTo("/api/orders/42")
			.jsonPath("$['violated-policies']")
			.isEqualTo(List.of("orders-anonymous-1"));
	}

	@Test
	void theCatalogJudgesEachTenantsQuotaWithTheMonthlyQuotaAndBlocksABreach() {
		for (int remaining = 4; remaining >= 0; remaining--) {
			this.client.get()
				.uri("/api/catalog/1")
				.header("X-Tenant", "acme")
				.exchange()
				.expectStatus()
				.isOk()
				.expectHeader()
				.valueEquals("RateLimit-Limit", "5")
				.expectHeader()
				.valueEquals("RateLimit-Remaining", Integer.toString(remaining));
		}
		// The breach: the window's own wait is longer than the block.
		this.client.get()
			.uri("/api/catalog/1")
			.header("X-Tenant", "acme")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader()
			.valueEquals("Retry-After", "60");
		this.client.get()
			.uri("/api/catalog/1")
			.header("X-Tenant", "acme")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader()
			.valueEquals("Retry-After", "30")
			.expectHeader()
			.doesNotExist("RateLimit-Remaining")
			.expectBody()
			.jsonPath("$.detail")
			.isEqualTo("You are blocked until 1970-01-01T00:00:30Z for exceeding a rate limit.");
		this.client.get()
			.uri("/api/catalog/1")
			.header("X-Tenant", "globex")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Remaining", "4");
		// Refused requests took nothing from the monthly quota; it resets at 00:00 on
		// February 1st in Paris, 23:00 UTC the day before.
		this.client.get()
			.uri("/actuator/ratelimits/catalog-monthly")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.buckets[0].limits[0].remaining")
			.isEqualTo(99994)
			.jsonPath("$.buckets[0].limits[0].resetSeconds")
			.isEqualTo(2674800);
	}

	@Test
	void theFreeKeySendsDraft06FieldsUnderTheirDraftNames() {
		this.client.get()
			.uri("/api/orders/7")
			.header("X-API-Key", "demo-free-key")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Limit", "10")
			.expectHeader()
			.valueEquals("RateLimit-Remaining", "9")
			.expectHeader()
			.valueEquals("RateLimit-Reset", "1")
			.expectHeader()
			.valueEquals("RateLimit-Policy", "10;w=5, 10000;w=86400")
			.expectHeader()
			.doesNotExist("X-RateLimit-Policy")
			.expectBody(Void.class);
	}

	@Test
	void theProKeyHasItsOwnLargerQuota() {
		this.client.get()
			.uri("/api/orders/7")
			.header("X-API-Key", "demo-pro-key")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Limit", "100")
			.expectHeader()
			.valueEquals("RateLimit-Policy", "100;w=60")
			.expectBody(Void.class);
	}

	@Test
	void paymentsQueueThreeThenReject() {
		for (int i = 0; i < 3; i++) {
			this.client.get().uri("/api/payments/1").exchange().expectStatus().isOk().expectBody(Void.class);
		}
		this.client.get()
			.uri("/api/payments/1")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectBody(Void.class);
	}

	@Test
	void reportsAreOnlyShadowLimited() {
		for (int i = 0; i < 5; i++) {
			this.client.get().uri("/api/reports/daily").exchange().expectStatus().isOk().expectBody(Void.class);
		}
		this.client.get()
			.uri("/api/reports/daily")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Remaining", "0")
			.expectBody(Void.class);
	}

	/**
	 * The five transfers that fit in the queue reach the upstream half a second apart, as
	 * it drains at 2/s, instead of all at once; the three that do not fit are refused.
	 */
	@Test
	void transfersAreHeldAndForwardedAtTheRate() {
		WebClient client = WebClient.create("http://localhost:" + PORT);
		Instant sent = Instant.now();
		List<Map<String, Object>> answers = Flux.range(0, 8)
			.flatMap((i) -> client.get()
				.uri("/api/transfers/1")
				.exchangeToMono((response) -> response.bodyToMono(Map.class)
					.map((body) -> Map.<String, Object>of("status", response.statusCode().value(), "at",
							String.valueOf(body.get("at"))))), 8)
			.collectList()
			.block(Duration.ofSeconds(30));
		List<Instant> forwarded = new ArrayList<>();
		for (Map<String, Object> answer : answers) {
			if (answer.get("status").equals(200)) {
				forwarded.add(Instant.parse((String) answer.get("at")));
			}
		}
		assertThat(answers).filteredOn((answer) -> answer.get("status").equals(429)).hasSize(3);
		assertThat(forwarded).hasSize(5);
		forwarded.sort(null);
		// The n-th released once n places have drained since the first was judged, after
		// it was sent: never early, where not held all five would arrive within
		// milliseconds. Late only by the node's own delays.
		for (int i = 1; i < forwarded.size(); i++) {
			assertThat(Duration.between(sent, forwarded.get(i))).isGreaterThanOrEqualTo(Duration.ofMillis(500L * i));
		}
	}


	@Test
	void onlyFailedLoginsCountAndOnceSpentEvenTheRightPasswordIsRefused() {
		this.client.post().uri("/api/login").header("X-Password", UpstreamRoutes.PASSWORD).exchange()
			.expectStatus().isOk()
			.expectHeader().valueEquals("RateLimit-Remaining", "3");
		for (int remaining = 2; remaining >= 0; remaining--) {
			this.client.post().uri("/api/login").header("X-Password", "guess").exchange()
				.expectStatus().isUnauthorized()
				.expectHeader().valueEquals("RateLimit-Remaining", Integer.toString(remaining));
		}
		this.client.post().uri("/api/login").header("X-Password", UpstreamRoutes.PASSWORD).exchange()
			.expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader().exists("Retry-After");
	}

	@Test
	void chatIsChargedTheTokensTheModelReportsInItsBodyAndInItsLastEvent() {
		// 50 taken on admission, 18 reported: 32 given back once the body was read.
		this.client.get().uri("/api/chat/completions?prompt=how+do+rate+limits+work").exchange()
			.expectStatus().isOk()
			.expectHeader().valueEquals("RateLimit-Remaining", "50")
			.expectBody().jsonPath("$.usage.total_tokens").isEqualTo(18);
		List<String> events = WebClient.create("http://localhost:" + PORT)
			.get()
			.uri("/api/chat/completions?prompt=hi&stream=true")
			.retrieve()
			.bodyToFlux(String.class)
			.collectList()
			.block(Duration.ofSeconds(30));
		assertThat(events).last().isEqualTo("[DONE]");
		assertThat(events).anySatisfy((event) -> assertThat(event).contains("\"total_tokens\":14"));
		// 100 - 18 - 14 left, of which this request's estimate takes 50.
		this.client.get().uri("/api/chat/completions?prompt=hello").exchange()
			.expectStatus().isOk()
			.expectHeader().valueEquals("RateLimit-Remaining", "18");
	}

	@Test
	void atMostTwoExportsOfOneClientAreInFlight() {
		WebClient client = WebClient.create("http://localhost:" + PORT);
		List<Integer> statuses = Flux.range(0, 3)
			.flatMap((i) -> client.get()
				.uri("/api/exports/report.csv")
				.exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode().value())), 3)
			.collectList()
			.block(Duration.ofSeconds(30));
		assertThat(statuses).containsExactlyInAnyOrder(200, 200, 429);
		// Both slots came back with their answers.
		this.client.get().uri("/api/exports/report.csv").exchange()
			.expectStatus().isOk()
			.expectHeader().valueEquals("RateLimit-Remaining", "1");
	}

}
