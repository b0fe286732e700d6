package dev.ratelimit.actuate;

import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * End-to-end tests of the {@code ratelimits} endpoint, metrics and health against a
 * running gateway ({@code application-actuator.yml}) that grants write access to the
 * endpoint. Each test sends its own API key, and the metrics test its own policy, so no
 * test depends on another.
 */
@SpringBootTest(classes = ActuatorGatewayApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "management.endpoint.ratelimits.access=unrestricted")
@AutoConfigureWebTestClient
@ActiveProfiles("actuator")
class RateLimitsEndpointGatewayTests {

	@Autowired
	private WebTestClient client;

	@Test
	void listingShowsTheExhaustedBucketWithRemainingZeroAndItsKeyMasked() {
		assertThat(send("/orders", "listing-key", 5)).containsExactly(200, 200, 200, 429, 429);
		String body = read("/actuator/ratelimits/orders");
		assertThat(body).doesNotContain("listing-key");
		DocumentContext json = JsonPath.parse(body);
		assertThat(json.read("$.policy", String.class)).isEqualTo("orders");
		assertThat(json.read("$.store", String.class)).isEqualTo("caffeine");
		// echo -n listing-key | sha256sum: e1d93ef8...
		Map<String, Object> bucket = onlyBucket(json, "list…e1d93ef8");
		assertThat(bucket).containsEntry("tier", "free").containsEntry("requests", 5);
		Map<String, Object> limit = firstLimit(bucket);
		assertThat(limit).containsEntry("name", "orders-free-1")
			.containsEntry("algorithm", "token-bucket")
			.containsEntry("limit", 3)
			.containsEntry("remaining", 0);
		assertThat((Integer) limit.get("resetSeconds")).isPositive();
		assertThat(limit.get("state")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP).containsKey("tokens");
	}

	@Test
	void policyListingShowsRoutesLimitsBucketsAndTotals() {
		// Only this test uses the listed policy, so its totals are this test's requests.
		assertThat(send("/listed", "listed-key", 4)).containsExactly(200, 200, 200, 429);
		DocumentContext json = JsonPath.parse(read("/actuator/ratelimits"));
		assertThat(json.read("$.stores", List.class)).containsExactly("caffeine");
		assertThat(json.read("$.policies.orders.routes", List.class)).containsExactly("orders");
		assertThat(json.read("$.policies.metered.routes", List.class)).containsExactly("metered");
		assertThat(json.read("$.policies.orders.key", String.class)).isEqualTo("api-key");
		assertThat(json.read("$.policies.orders.store", String.class)).isEqualTo("caffeine");
		assertThat(json.read("$.policies.orders.tiers.free[0].algorithm", String.class)).isEqualTo("token-bucket");
		assertThat(json.read("$.policies.orders.tiers.free[0].name", String.class)).isEqualTo("orders-free-1");
		assertThat(json.read("$.policies.metered.tiers.free[0].name", String.class)).isEqualTo("metered-daily");
		assertThat(json.read("$.policies.orders.tiers.free[0].parameters", Map.class))
			.containsEntry("capacity", 3)
			.containsEntry("refill-rate", 1.0)
			.containsEntry("refill-period", "1d");
		assertThat(json.read("$.policies.orders.tiers.anonymous[0].parameters", Map.class))
			.containsEntry("limit", 1000)
			.containsEntry("window", "1d");
		assertThat(json.read("$.policies.listed.routes", List.class)).containsExactly("listed");
		assertThat(json.read("$.policies.listed.totals", Map.class)).containsExactlyInAnyOrderEntriesOf(
				Map.ofEntries(Map.entry("allowed", 3), Map.entry("rejected", 1), Map.entry("shadowRejected", 0), Map.entry("errors", 0),
						Map.entry("missingKey", 0), Map.entry("delayed", 0), Map.entry("shadowDelayed", 0), Map.entry("holdsFull", 0),
						Map.entry("charged", 0), Map.entry("refunded", 0), Map.entry("unreadableCosts", 0), Map.entry("inFlight", 0),
						Map.entry("blocked", 0), Map.entry("blocks", 0), Map.entry("exempt", 0)));
		assertThat(json.read("$.heldRequests", Map.class)).containsExactlyInAnyOrderEntriesOf(
				Map.of("held", 0, "max", 10000));
		assertThat(json.read("$.policies.listed.liveBuckets", Long.class)).isEqualTo(1);
		assertThat(json.read("$.policies.listed", Map.class)).doesNotContainKey("liveBucketsError");
	}

	@Test
	void aShadowShapingPolicyCountsWhatItWouldHaveHeldAndShowsItsQueue() {
		// Only this test uses the shaped policy, so its totals and meters are this test's requests.
		for (int i = 0; i < 3; i++) {
			this.client.get()
				.uri("/shaped")
				.header("X-Client", "shaped-client")
				.exchange()
				.expectStatus()
				.isOk()
				.expectBody(Void.class);
		}
		DocumentContext json = JsonPath.parse(read("/actuator/ratelimits"));
		assertThat(json.read("$.policies.shaped.totals", Map.class)).containsExactlyInAnyOrderEntriesOf(
				Map.ofEntries(Map.entry("allowed", 1), Map.entry("rejected", 0), Map.entry("shadowRejected", 1), Map.entry("errors", 0),
						Map.entry("missingKey", 0), Map.entry("delayed", 0), Map.entry("shadowDelayed", 1), Map.entry("holdsFull", 0),
						Map.entry("charged", 0), Map.entry("refunded", 0), Map.entry("unreadableCosts", 0), Map.entry("inFlight", 0),
						Map.entry("blocked", 0), Map.entry("blocks", 0), Map.entry("exempt", 0)));
		assertThat(json.read("$.policies.shaped.tiers.anonymous[0].parameters", Map.class))
			.containsExactlyInAnyOrderEntriesOf(Map.of("capacity", 5, "drain-rate", 1.0, "drain-period", "1d",
					"shaping.max-delay", "36h", "shaping.delay-after", 1));
		assertThat(count("ratelimit.requests", "policy:shaped", "outcome:shadow-delayed")).isEqualTo(1);
		assertThat(count("ratelimit.requests", "policy:shaped", "outcome:shadow-rejected")).isEqualTo(1);
		assertThat(count("ratelimit.shaping.delay", "policy:shaped", "outcome:shadow-delayed", "route:shaped",
				"tier:anonymous")).isEqualTo(1);
		assertThat(count("ratelimit.shaping.delay", "policy:shaped", "outcome:delayed")).isZero();
		// The second request would have waited a day for the first to drain, less the moments between them.
		assertThat(statistic("ratelimit.shaping.delay", "TOTAL_TIME", "policy:shaped", "outcome:shadow-delayed"))
			.isCloseTo(86_400.0, within(60.0));
		// The over-long third never joined the queue: two in it, and one judged now would wait two days.
		Map<String, Object> bucket = JsonPath.parse(read("/actuator/ratelimits/shaped/shaped-client"))
			.read("$.buckets[0]");
		Map<String, Object> queue = stateOf(firstLimit(bucket));
		assertThat(((Number) queue.get("level")).doubleValue()).isCloseTo(2.0, within(0.001));
		assertThat(((Number) queue.get("hold")).doubleValue()).isCloseTo(172_800.0, within(60.0));
	}

	@Test
	void metricsShowTheRequestsThisNodeHoldsAndTheMostItMay() {
		DocumentContext held = JsonPath.parse(read("/actuator/metrics/ratelimit.shaping.held"));
		assertThat(held.read("$.measurements[0].value", Double.class)).isZero();
		DocumentContext max = JsonPath.parse(read("/actuator/metrics/ratelimit.shaping.held.max"));
		assertThat(max.read("$.measurements[0].value", Double.class)).isEqualTo(10_000.0);
	}

	@Test
	void perKeyReadShowsTheClientsBucketState() {
		assertThat(send("/orders", "lookup-key", 2)).containsExactly(200, 200);
		DocumentContext json = JsonPath.parse(read("/actuator/ratelimits/orders/lookup-key"));
		assertThat(json.read("$.policy", String.class)).isEqualTo("orders");
		// echo -n lookup-key | sha256sum: 0445d226...
		Map<String, Object> bucket = onlyBucket(json, "look…0445d226");
		assertThat(bucket).containsEntry("tier", "free").containsEntry("requests", 2);
		assertThat(firstLimit(bucket)).containsEntry("remaining", 1);
	}

	@Test
	void deleteRestoresTheQuota() {
		assertThat(send("/orders", "reset-key", 4)).containsExactly(200, 200, 200, 429);
		expectStatus(HttpMethod.DELETE, "/actuator/ratelimits/orders/reset-key", HttpStatus.NO_CONTENT);
		expectStatus(HttpMethod.GET, "/actuator/ratelimits/orders/reset-key", HttpStatus.NOT_FOUND);
		assertThat(send("/orders", "reset-key", 1)).containsExactly(200);
		Map<String, Object> bucket = onlyBucket(JsonPath.parse(read("/actuator/ratelimits/orders/reset-key")),
				"rese…52102102");
		assertThat(bucket).containsEntry("requests", 1);
		assertThat(firstLimit(bucket)).containsEntry("remaining", 2);
	}

	@Test
	void ipKeysAreReadAndResetByTheirRawValue() {
		for (String ip : new String[] { "203.0.113.7", "2001:db8::7" }) {
			for (int i = 0; i < 3; i++) {
				this.client.get().uri("/by-client").header("X-Client", ip).exchange().expectBody(Void.class);
			}
			Map<String, Object> bucket = JsonPath.parse(read("/actuator/ratelimits/by-client/" + ip))
				.read("$.buckets[0]");
			assertThat(bucket).containsEntry("tier", "anonymous").containsEntry("requests", 3);
			assertThat(firstLimit(bucket)).containsEntry("algorithm", "sliding-window-log")
				.containsEntry("remaining", 0);
			assertThat((String) bucket.get("key")).doesNotContain(ip);
			expectStatus(HttpMethod.DELETE, "/actuator/ratelimits/by-client/" + ip, HttpStatus.NO_CONTENT);
			this.client.get()
				.uri("/by-client")
				.header("X-Client", ip)
				.exchange()
				.expectStatus()
				.isOk()
				.expectBody(Void.class);
		}
	}

	@Test
	void unknownPolicyOrKeyIsNotFound() {
		expectStatus(HttpMethod.GET, "/actuator/ratelimits/nope", HttpStatus.NOT_FOUND);
		expectStatus(HttpMethod.GET, "/actuator/ratelimits/nope/some-key", HttpStatus.NOT_FOUND);
		expectStatus(HttpMethod.GET, "/actuator/ratelimits/orders/never-seen", HttpStatus.NOT_FOUND);
		expectStatus(HttpMethod.DELETE, "/actuator/ratelimits/nope/some-key", HttpStatus.NOT_FOUND);
		expectStatus(HttpMethod.DELETE, "/actuator/ratelimits/orders/never-seen", HttpStatus.NOT_FOUND);
	}

	@Test
	void dashboardIsOffUnlessEnabled() {
		expectStatus(HttpMethod.GET, "/actuator/ratelimits-dashboard", HttpStatus.NOT_FOUND);
	}

	@Test
	void limitOutsideOneToTenThousandIsABadRequestThatSaysWhy() {
		for (String limit : List.of("0", "10001", "ten")) {
			this.client.get()
				.uri("/actuator/ratelimits/orders?limit=" + limit)
				.exchange()
				.expectStatus()
				.isBadRequest()
				.expectHeader()
				.contentType("application/problem+json")
				.expectBody()
				.jsonPath("$.status")
				.isEqualTo(400)
				.jsonPath("$.title")
				.isEqualTo("Bad Request")
				.jsonPath("$.parameter")
				.isEqualTo("limit")
				.jsonPath("$.detail")
				.isEqualTo("limit must be a whole number from 1 to 10000, was '" + limit + "'");
		}
		expectStatus(HttpMethod.GET, "/actuator/ratelimits/orders?limit=1", HttpStatus.OK);
	}

	@Test
	void metricCountsEqualTheResponsesSent() {
		List<Integer> statuses = send("/metered", "metered-key", 5);
		long allowed = statuses.stream().filter((status) -> status == 200).count();
		long rejected = statuses.stream().filter((status) -> status == 429).count();
		assertThat(allowed).isEqualTo(3);
		assertThat(rejected).isEqualTo(2);
		assertThat(count("ratelimit.requests", "policy:metered", "outcome:allowed")).isEqualTo(allowed);
		assertThat(count("ratelimit.requests", "policy:metered", "outcome:rejected")).isEqualTo(rejected);
		assertThat(count("ratelimit.requests", "policy:metered", "tier:free", "route:metered")).isEqualTo(5);
		assertThat(count("ratelimit.decision", "store:caffeine")).isGreaterThanOrEqualTo(5);
		DocumentContext buckets = JsonPath.parse(read("/actuator/metrics/ratelimit.buckets?tag=policy:metered"));
		assertThat(buckets.read("$.measurements[0].value", Double.class)).isEqualTo(1.0);
		DocumentContext json = JsonPath.parse(read("/actuator/ratelimits"));
		assertThat(json.read("$.policies.metered.totals.allowed", Long.class)).isEqualTo(allowed);
		assertThat(json.read("$.policies.metered.totals.rejected", Long.class)).isEqualTo(rejected);
		assertThat(json.read("$.policies.metered.liveBuckets", Long.class)).isEqualTo(1);
	}

	@Test
	void healthShowsRatelimitUpWithStoreDetails() {
		this.client.get()
			.uri("/by-client")
			.header("X-Client", "health-client")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(Void.class);
		List<Number> liveBuckets = JsonPath.parse(read("/actuator/ratelimits")).read("$.policies.*.liveBuckets");
		DocumentContext json = JsonPath.parse(read("/actuator/health/ratelimit"));
		assertThat(json.read("$.status", String.class)).isEqualTo("UP");
		assertThat(json.read("$.details.store", String.class)).isEqualTo("caffeine");
		// One store serves every policy: its count is theirs added up, this test's bucket included.
		assertThat(json.read("$.details.buckets", Long.class)).isPositive()
			.isEqualTo(liveBuckets.stream().mapToLong(Number::longValue).sum());
	}

	/**
	 * Send a request to {@code uri}, expect {@code status}, and release the body unread.
	 */
	private void expectStatus(HttpMethod method, String uri, HttpStatus status) {
		this.client.method(method).uri(uri).exchange().expectStatus().isEqualTo(status).expectBody(Void.class);
	}

	private List<Integer> send(String path, String apiKey, int requests) {
		Integer[] statuses = new Integer[requests];
		for (int i = 0; i < requests; i++) {
			statuses[i] = this.client.get()
				.uri(path)
				.header("X-API-Key", apiKey)
				.exchange()
				.returnResult(Void.class)
				.getStatus()
				.value();
		}
		return List.of(statuses);
	}

	private String read(String uri) {
		return this.client.get()
			.uri(uri)
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.OK)
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
	}

	private double count(String metric, String... tags) {
		return statistic(metric, "COUNT", tags);
	}

	private double statistic(String metric, String statistic, String... tags) {
		StringBuilder uri = new StringBuilder("/actuator/metrics/").append(metric);
		for (int i = 0; i < tags.length; i++) {
			uri.append((i == 0) ? "?" : "&").append("tag=").append(tags[i]);
		}
		return JsonPath.parse(read(uri.toString()))
			.read("$.measurements[?(@.statistic == '" + statistic + "')].value", List.class)
			.stream()
			.mapToDouble((value) -> ((Number) value).doubleValue())
			.sum();
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> onlyBucket(DocumentContext json, String maskedKey) {
		List<Map<String, Object>> buckets = json.read("$.buckets[?(@.key == '" + maskedKey + "')]", List.class);
		assertThat(buckets).hasSize(1);
		return buckets.get(0);
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> firstLimit(Map<String, Object> bucket) {
		return ((List<Map<String, Object>>) bucket.get("limits")).get(0);
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> stateOf(Map<String, Object> limit) {
		return (Map<String, Object>) limit.get("state");
	}

}
