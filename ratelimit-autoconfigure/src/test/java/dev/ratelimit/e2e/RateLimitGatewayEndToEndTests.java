package dev.ratelimit.e2e;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.ratelimit.support.ManualClock;
import dev.ratelimit.web.Outcome;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests through a real gateway on a random port to a real upstream, with a clock
 * moved by hand.
 */
@SpringBootTest(classes = GatewayTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT)
@ActiveProfiles("e2e")
class RateLimitGatewayEndToEndTests {

	private static final Upstream upstream = Upstream.start();

	@LocalServerPort
	private int port;

	@Autowired
	private ManualClock clock;

	@Autowired
	private RecordingListener listener;

	private WebTestClient client;

	private final String clientId = "client-" + UUID.randomUUID();

	@DynamicPropertySource
	static void upstreamUri(DynamicPropertyRegistry registry) {
		registry.add("upstream.uri", upstream::uri);
	}

	@AfterAll
	static void stopUpstream() {
		upstream.close();
	}

	@BeforeEach
	void startInAFreshDay() {
		// Every limit here is as good as new after two idle days; aligning to a day
		// also aligns every fixed and sliding window.
		this.clock.advance(Duration.ofDays(2));
		this.clock.advanceToMultipleOf(Duration.ofDays(1));
		this.client = WebTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + this.port)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
		this.listener.clear();
	}

	@Test
	void fixedWindowAdmitsTheLimitThenRejectsUntilTheNextWindow() {
		assertAllowed(get("/fixed/a"), "3", "2", "60");
		assertAllowed(get("/fixed/a"), "3", "1", "60");
		assertAllowed(get("/fixed/a"), "3", "0", "60");
		assertRejected(get("/fixed/a"), 60);
		this.clock.advance(Duration.ofSeconds(59));
		assertRejected(get("/fixed/a"), 1);
		this.clock.advance(Duration.ofSeconds(1));
		assertAllowed(get("/fixed/a"), "3", "2", "60");
		assertThat(upstream.hits("/fixed/a")).isEqualTo(4);
	}

	@Test
	void fixedWindowAllowsTwiceTheLimitAroundABoundary() {
		this.clock.advance(Duration.ofMillis(59_500));
		for (int i = 0; i < 3; i++) {
			assertStatus(get("/fixed/boundary"), HttpStatus.OK);
		}
		this.clock.advance(Duration.ofMillis(500));
		for (int i = 0; i < 3; i++) {
			assertStatus(get("/fixed/boundary"), HttpStatus.OK);
		}
		assertStatus(get("/fixed/boundary"), HttpStatus.TOO_MANY_REQUESTS);
		assertThat(upstream.hits("/fixed/boundary")).isEqualTo(6);
	}

	@Test
	void slidingWindowLogFreesASlotWhenTheOldestRequestLeavesTheWindow() {
		assertStatus(get("/log/a"), HttpStatus.OK);
		this.clock.advance(Duration.ofSeconds(4));
		assertStatus(get("/log/a"), HttpStatus.OK);
		assertStatus(get("/log/a"), HttpStatus.OK);
		assertRejected(get("/log/a"), 6);
		this.clock.advance(Duration.ofSeconds(6));
		assertAllowed(get("/log/a"), "3", "0", null);
		assertRejected(get("/log/a"), 4);
		assertThat(upstream.hits("/log/a")).isEqualTo(4);
	}

	@Test
	void slidingWindowCounterWeighsThePreviousWindow() {
		for (int i = 0; i < 4; i++) {
			assertStatus(get("/counter/a"), HttpStatus.OK);
		}
		assertStatus(get("/counter/a"), HttpStatus.TOO_MANY_REQUESTS);
		this.clock.advance(Duration.ofSeconds(10));
		// The previous window's 4 requests still weigh fully at the start of this one.
		assertStatus(get("/counter/a"), HttpStatus.TOO_MANY_REQUESTS);
		this.clock.advance(Duration.ofSeconds(5));
		// Half-way through, they weigh 2: two more fit.
		assertStatus(get("/counter/a"), HttpStatus.OK);
		assertStatus(get("/counter/a"), HttpStatus.OK);
		assertStatus(get("/counter/a"), HttpStatus.TOO_MANY_REQUESTS);
		assertThat(upstream.hits("/counter/a")).isEqualTo(6);
	}

	@Test
	void tokenBucketBurstsToCapacityThenRefillsAtItsRate() {
		// The reset is when the next token arrives: one every 2 seconds.
		assertAllowed(get("/token/a"), "3", "2", "2");
		assertAllowed(get("/token/a"), "3", "1", "2");
		assertAllowed(get("/token/a"), "3", "0", "2");
		assertRejected(get("/token/a"), 2);
		this.clock.advance(Duration.ofSeconds(2));
		assertAllowed(get("/token/a"), "3", "0", "2");
		assertRejected(get("/token/a"), 2);
		assertThat(upstream.hits("/token/a")).isEqualTo(4);
	}

	@Test
	void leakyBucketQueuesToCapacityThenDrainsAtItsRate() {
		// The reset is when the next queue slot drains: one a second.
		assertAllowed(get("/leaky/a"), "2", "1", "1");
		assertAllowed(get("/leaky/a"), "2", "0", "1");
		assertRejected(get("/leaky/a"), 1);
		this.clock.advance(Duration.ofSeconds(1));
		assertAllowed(get("/leaky/a"), "2", "0", "1");
		assertThat(upstream.hits("/leaky/a")).isEqualTo(3);
	}

	@Test
	void tiersGetTheirOwnLimitsAndUnknownKeysShareTheClientIpQuota() {
		assertAllowed(get("/orders/1", "X-API-Key", null), "2", "1", "60");
		assertAllowed(get("/orders/1", "X-API-Key", "made-up-1"), "2", "0", "60");
		assertRejected(get("/orders/1", "X-API-Key", "made-up-2"), 60);
		assertRejected(get("/orders/1", "X-API-Key", ""), 60);
		EntityExchangeResult<byte[]> free = get("/orders/1", "X-API-Key", "free-key");
		assertAllowed(free, "3", "2", "1");
		assertThat(free.getResponseHeaders().getFirst("RateLimit-Policy")).isEqualTo("3;w=3, 5;w=86400");
		get("/orders/1", "X-API-Key", "free-key");
		get("/orders/1", "X-API-Key", "free-key");
		EntityExchangeResult<byte[]> freeRejected = get("/orders/1", "X-API-Key", "free-key");
		assertRejected(freeRejected, 1);
		assertThat(new String(freeRejected.getResponseBodyContent()))
			.contains("You have exceeded the rate limit of 1 request per second, with bursts of up to 3.");
		for (int i = 0; i < 10; i++) {
			assertStatus(get("/orders/1", "X-API-Key", "pro-key"), HttpStatus.OK);
		}
		// The 10 requests weigh 9 or less only 6s into the next window.
		assertRejected(get("/orders/1", "X-API-Key", "pro-key"), 66);
		assertThat(upstream.hits("/orders/1")).isEqualTo(2 + 3 + 10);
		assertThat(decisions("orders")).extracting(RecordingListener.Decision::tier)
			.containsExactly("anonymous", "anonymous", "anonymous", "anonymous", "free", "free", "free", "free", "pro",
					"pro", "pro", "pro", "pro", "pro", "pro", "pro", "pro", "pro", "pro");
	}

	@Test
	void aTierReportsTheLimitClosestToExhaustion() {
		// free: token bucket 3 (refill 1/s) and fixed window 5 per day.
		for (int i = 0; i < 3; i++) {
			get("/orders/2", "X-API-Key", "free-key");
		}
		this.clock.advance(Duration.ofSeconds(3));
		// The bucket is full again (3 of 3) but the day has 1 of 5 left after this one.
		assertAllowed(get("/orders/2", "X-API-Key", "free-key"), "5", "1", null);
		assertAllowed(get("/orders/2", "X-API-Key", "free-key"), "5", "0", null);
		assertRejected(get("/orders/2", "X-API-Key", "free-key"), 86_400 - 3);
	}

	@Test
	void routesNamingOnePolicyShareEachClientsQuota() {
		assertStatus(get("/shared-a/x"), HttpStatus.OK);
		assertStatus(get("/shared-b/x"), HttpStatus.OK);
		assertStatus(get("/shared-a/x"), HttpStatus.TOO_MANY_REQUESTS);
		assertStatus(get("/shared-b/x"), HttpStatus.TOO_MANY_REQUESTS);
		assertThat(upstream.hits("/shared-a/x") + upstream.hits("/shared-b/x")).isEqualTo(2);
	}

	@Test
	void routesWithSeparatePoliciesHaveSeparateQuotas() {
		for (int i = 0; i < 2; i++) {
			assertStatus(get("/separate-a/x"), HttpStatus.OK);
			assertStatus(get("/separate-b/x"), HttpStatus.OK);
		}
		assertStatus(get("/separate-a/x"), HttpStatus.TOO_MANY_REQUESTS);
		assertStatus(get("/separate-b/x"), HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void routeKeyGivesOneQuotaPerRouteWhoeverCalls() {
		assertStatus(get("/per-route-a/x", "X-Client", "alice"), HttpStatus.OK);
		assertStatus(get("/per-route-a/x", "X-Client", "bob"), HttpStatus.OK);
		assertStatus(get("/per-route-a/x", "X-Client", "carol"), HttpStatus.TOO_MANY_REQUESTS);
		assertStatus(get("/per-route-b/x", "X-Client", "carol"), HttpStatus.OK);
	}

	@Test
	void aKeyResolverBeanChoosesWhoseQuotaARequestCountsAgainst() {
		assertStatus(get("/tenant/x", "X-Tenant", "acme"), HttpStatus.OK);
		assertStatus(get("/tenant/x", "X-Tenant", "acme"), HttpStatus.TOO_MANY_REQUESTS);
		assertStatus(get("/tenant/x", "X-Tenant", "globex"), HttpStatus.OK);
		// Without a tenant the resolver yields nothing: the client IP's quota applies.
		assertStatus(get("/tenant/x", "X-Tenant", null), HttpStatus.OK);
		assertStatus(get("/tenant/x", "X-Tenant", null), HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void shadowPolicyCountsAndReportsButNeverRejects() {
		assertAllowed(get("/shadow/x"), "1", "0", "60");
		EntityExchangeResult<byte[]> over = get("/shadow/x");
		assertAllowed(over, "1", "0", "60");
		assertThat(over.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isNull();
		assertThat(upstream.hits("/shadow/x")).isEqualTo(2);
		assertThat(decisions("shadow")).extracting(RecordingListener.Decision::outcome)
			.containsExactly(Outcome.ALLOWED, Outcome.SHADOW_REJECTED);
	}

	@Test
	void costConsumesSeveralUnitsPerRequest() {
		assertAllowed(get("/costly/x"), "5", "3", "60");
		assertAllowed(get("/costly/x"), "5", "1", "60");
		assertRejected(get("/costly/x"), 60);
	}

	@Test
	void rejectionIsAProblemDetailAndNeverReachesTheUpstream() {
		get("/fixed/items/42?page=1");
		get("/fixed/items/42");
		get("/fixed/items/42");
		this.clock.advance(Duration.ofSeconds(48));
		this.client.get()
			.uri("/fixed/items/42?page=2")
			.header("X-Client", this.clientId)
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectHeader()
			.valueEquals(HttpHeaders.RETRY_AFTER, "12")
			.expectHeader()
			.valueEquals("RateLimit-Remaining", "0")
			.expectHeader()
			.valueEquals("RateLimit-Reset", "12")
			.expectBody()
			.jsonPath("$.type")
			.isEqualTo("https://iana.org/assignments/http-problem-types#quota-exceeded")
			.jsonPath("$.title")
			.isEqualTo("Rate limit exceeded")
			.jsonPath("$.status")
			.isEqualTo(429)
			.jsonPath("$.detail")
			.isEqualTo("You have exceeded the rate limit of 3 requests per minute.")
			.jsonPath("$.instance")
			.isEqualTo("/fixed/items/42")
			.jsonPath("$.retryAfter")
			.isEqualTo(12)
			.jsonPath("$['violated-policies']")
			.isEqualTo(List.of("fixed-anonymous-1"));
		assertThat(upstream.hits("/fixed/items/42?page=1")).isEqualTo(1);
		assertThat(upstream.hits("/fixed/items/42")).isEqualTo(2);
		assertThat(upstream.hits("/fixed/items/42?page=2")).isZero();
		assertThat(decisions("fixed")).extracting(RecordingListener.Decision::outcome)
			.endsWith(Outcome.REJECTED);
	}

	@Test
	void headersSurviveOnTheUpstreamsResponse() {
		EntityExchangeResult<byte[]> result = get("/fixed/survive");
		assertThat(result.getResponseHeaders().getFirst("X-Upstream")).isEqualTo("reached");
		assertThat(result.getResponseHeaders().get("RateLimit-Limit")).containsExactly("3");
		assertThat(new String(result.getResponseBodyContent())).isEqualTo("{\"path\":\"/fixed/survive\"}");
	}

	@Test
	void hugeKeysAreLimitedLikeAnyOtherAndNeverFail() {
		String huge = "k".repeat(4000);
		for (int i = 0; i < 3; i++) {
			assertStatus(get("/fixed/huge", "X-Client", huge), HttpStatus.OK);
		}
		assertStatus(get("/fixed/huge", "X-Client", huge), HttpStatus.TOO_MANY_REQUESTS);
		assertStatus(get("/orders/huge", "X-API-Key", huge), HttpStatus.OK);
	}

	@Test
	void listenersHearPolicyTierRouteAndStore() {
		get("/separate-a/listened");
		assertThat(decisions("separate-a")).containsExactly(
				new RecordingListener.Decision("separate-a", "anonymous", "separate-a", "caffeine", Outcome.ALLOWED));
	}

	private List<RecordingListener.Decision> decisions(String policy) {
		return this.listener.decisions().stream().filter((decision) -> decision.policy().equals(policy)).toList();
	}

	private EntityExchangeResult<byte[]> get(String path) {
		return get(path, "X-Client", this.clientId);
	}

	private EntityExchangeResult<byte[]> get(String path, String header, String value) {
		WebTestClient.RequestHeadersSpec<?> request = this.client.get().uri(path);
		if (value != null) {
			request = request.header(header, value);
		}
		return request.exchange().expectBody().returnResult();
	}

	private static void assertStatus(EntityExchangeResult<byte[]> result, HttpStatus status) {
		assertThat(result.getStatus()).as(result.toString()).isEqualTo(status);
	}

	private static void assertAllowed(EntityExchangeResult<byte[]> result, String limit, String remaining,
			String reset) {
		assertStatus(result, HttpStatus.OK);
		HttpHeaders headers = result.getResponseHeaders();
		assertThat(headers.getFirst("RateLimit-Limit")).isEqualTo(limit);
		assertThat(headers.getFirst("RateLimit-Remaining")).isEqualTo(remaining);
		if (reset != null) {
			assertThat(headers.getFirst("RateLimit-Reset")).isEqualTo(reset);
		}
	}

	private static void assertRejected(EntityExchangeResult<byte[]> result, long retryAfterSeconds) {
		assertStatus(result, HttpStatus.TOO_MANY_REQUESTS);
		assertThat(result.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER))
			.isEqualTo(Long.toString(retryAfterSeconds));
		assertThat(result.getResponseHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
	}

}
