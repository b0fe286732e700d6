package dev.ratelimit.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.metrics.RateLimitSettlementMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Decisions settled after the response, through a real gateway to a real upstream, on
 * the store a subclass configures: responses counted by status, costs reported in a
 * header, a JSON body, a gzip-encoded JSON body and an event stream's last event, and
 * requests in flight. Each test has clients of its own, so that they share one gateway.
 * <ul>
 * <li>{@code /login/**}: policy {@code logins}, {@code count-responses: [401]}, 3 a
 * day.</li>
 * <li>{@code /errors/**}, {@code /errors-timeout/**} (a response timeout of its own):
 * policy {@code errors}, {@code count-responses: [5xx]}, 2 a day.</li>
 * <li>{@code /tokens/**}: policy {@code tokens}, an estimate of 5, the cost in
 * {@code X-Tokens} (hidden from the client), a token bucket of 100.</li>
 * <li>{@code /llm/**}: policy {@code llm}, an estimate of 5, the cost at
 * {@code /usage/total_tokens} of the body, a token bucket of 100.</li>
 * <li>{@code /slots/**}, {@code /slots-timeout/**}: policy {@code slots}, 2 in flight at
 * once.</li>
 * </ul>
 * Upstream paths answer as their names say; {@code X-Report} asks it to report that cost.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AfterResponseGatewayScenarios {

	/**
	 * How long a condition of the gateway is awaited: far longer than any settlement.
	 */
	protected static final Duration PATIENCE = Duration.ofSeconds(20);

	private static final String ROUTES = "spring.cloud.gateway.server.webflux.routes";

	private static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	protected final Upstream upstream = Upstream.start();

	/**
	 * Where {@code /slots/slow} waits.
	 */
	protected final Gate slow = new Gate();

	/**
	 * Where {@code /slots/fail} waits before it resets the connection.
	 */
	private final Gate failing = new Gate();

	/**
	 * Where {@code /llm/stream} waits before its usage event.
	 */
	private final Gate streaming = new Gate();

	private GatewayRunner gateway;

	/**
	 * The properties that put the gateway's policies on the store under test.
	 */
	protected abstract List<String> storeProperties();

	/**
	 * Stop what {@link #storeProperties()} started.
	 */
	protected void stopStore() {
	}

	@BeforeAll
	void startGateway() {
		this.upstream.answer("/login/fail", Upstream.json(401, "{\"error\":\"who are you\"}"))
			.answer("/errors/fail", Upstream.json(503, "{\"error\":\"down\"}"))
			.answer("/errors/missing", Upstream.json(404, "{\"error\":\"no such thing\"}"))
			.answer("/errors-timeout/", Upstream.never())
			.answer("/tokens/", (request, response) -> Upstream
				.json(200, "{}", "X-Tokens", request.requestHeaders().get("X-Report"))
				.send(request, response))
			.answer("/llm/json", (request, response) -> Upstream.json(200, usage(request.requestHeaders().get("X-Report")))
				.send(request, response))
			.answer("/llm/gzip", (request, response) -> Upstream.gzipJson(usage(request.requestHeaders().get("X-Report")))
				.send(request, response))
			.answer("/llm/stream", Upstream.eventStream(List.of(STREAM.get(0), STREAM.get(1)), this.streaming,
					List.of(STREAM.get(2), STREAM.get(3))))
			.answer("/slots/slow", Upstream.json(200, "{\"slow\":true}").after(this.slow))
			.answer("/slots/fail", Upstream.reset().after(this.failing))
			.answer("/slots-timeout/", Upstream.never());
		this.gateway = GatewayRunner.start(gatewayProperties().toArray(new String[0]));
	}

	@AfterAll
	void stop() {
		this.slow.open();
		this.failing.open();
		this.streaming.open();
		this.gateway.close();
		this.upstream.close();
		stopStore();
	}

	/**
	 * The gateway's properties: its policies, routes and actuator, on the store under
	 * test.
	 */
	protected List<String> gatewayProperties() {
		List<String> properties = new ArrayList<>(List.of("ratelimit.actuator.show-keys=always",
				"management.endpoints.web.exposure.include=ratelimits",
				"management.endpoint.ratelimits.access=unrestricted"));
		properties.addAll(policy("logins", "count-responses=401", "fixed-window", "limit=3", "window=1d"));
		properties.addAll(policy("errors", "count-responses=5xx", "fixed-window", "limit=2", "window=1d"));
		properties.addAll(policy("tokens", "cost=5,cost-from-response=header:X-Tokens,hide-response-cost-header=true",
				"token-bucket", "capacity=100", "refill-rate=1", "refill-period=1d"));
		properties.addAll(policy("llm", "cost=5,cost-from-response=json:/usage/total_tokens", "token-bucket",
				"capacity=100", "refill-rate=1", "refill-period=1d"));
		properties.addAll(policy("slots", null, "concurrency", "limit=2"));
		properties.addAll(route(0, "login", "/login/**", "logins"));
		properties.addAll(route(1, "errors", "/errors/**", "errors"));
		properties.addAll(route(2, "errors-timeout", "/errors-timeout/**", "errors"));
		properties.add(ROUTES + "[2].metadata.response-timeout=300");
		properties.addAll(route(3, "tokens", "/tokens/**", "tokens"));
		properties.addAll(route(4, "llm", "/llm/**", "llm"));
		properties.addAll(route(5, "slots", "/slots/**", "slots"));
		properties.addAll(route(6, "slots-timeout", "/slots-timeout/**", "slots"));
		properties.add(ROUTES + "[6].metadata.response-timeout=300");
		properties.addAll(storeProperties());
		return properties;
	}

	private static List<String> policy(String id, String settings, String algorithm, String... parameters) {
		String prefix = "ratelimit.policies." + id + ".";
		List<String> properties = new ArrayList<>(List.of(prefix + "key=header:X-Client",
				prefix + "tiers.anonymous[0].algorithm=" + algorithm));
		if (settings != null) {
			for (String setting : settings.split(",")) {
				properties.add(prefix + setting);
			}
		}
		for (String parameter : parameters) {
			properties.add(prefix + "tiers.anonymous[0]." + parameter);
		}
		return properties;
	}

	private List<String> route(int index, String id, String path, String policy) {
		String prefix = ROUTES + "[" + index + "].";
		return List.of(prefix + "id=" + id, prefix + "uri=" + this.upstream.uri(),
				prefix + "predicates[0]=Path=" + path, prefix + "filters[0]=RateLimit=" + policy);
	}

	// count-responses

	@Test
	void onlyTheListedStatusCountsAndOnceExhaustedEveryRequestIsRefused() {
		for (int i = 0; i < 4; i++) {
			Answer ok = get("/login/ok", "guesser");
			assertThat(ok.status()).isEqualTo(200);
			// A check takes nothing and describes the limit as it stands, and a success
			// takes nothing either: the whole limit every time.
			assertThat(ok.header("RateLimit-Remaining")).as("a success takes nothing").isEqualTo("3");
		}
		for (int remaining = 2; remaining >= 0; remaining--) {
			Answer failed = get("/login/fail", "guesser");
			assertThat(failed.status()).isEqualTo(401);
			assertThat(failed.header("RateLimit-Remaining")).as("the failure's own headers tell its charge")
				.isEqualTo(String.valueOf(remaining));
		}
		int reached = this.upstream.hits("/login/ok");
		Answer refused = get("/login/ok", "guesser");
		assertThat(refused.status()).as("a request that would have succeeded").isEqualTo(429);
		assertThat(refused.header("RateLimit-Remaining")).isEqualTo("0");
		assertThat(refused.header("Retry-After")).isNotNull();
		assertThat(this.upstream.hits("/login/ok")).isEqualTo(reached);
		assertThat(get("/login/ok", "someone-else").status()).isEqualTo(200);
	}

	@Test
	void aClassOfStatusesCountsTheUpstreamsErrorsAndTheGatewaysTimeout() {
		for (int i = 0; i < 2; i++) {
			Answer missing = get("/errors/missing", "flaky");
			assertThat(missing.status()).isEqualTo(404);
			assertThat(missing.header("RateLimit-Remaining")).as("4xx is not listed").isEqualTo("2");
		}
		Answer down = get("/errors/fail", "flaky");
		assertThat(down.status()).isEqualTo(503);
		assertThat(down.header("RateLimit-Remaining")).isEqualTo("1");
		Answer timedOut = get("/errors-timeout/slow", "flaky");
		assertThat(timedOut.status()).as("the gateway's own answer").isEqualTo(504);
		assertThat(timedOut.header("RateLimit-Remaining")).isEqualTo("0");
		assertThat(get("/errors/ok", "flaky").status()).isEqualTo(429);
	}

	// cost-from-response

	@Test
	void aCostInAHeaderReplacesTheEstimateAndIsHiddenFromTheClient() {
		Answer below = get("/tokens/a", "header-client", "X-Report", "2");
		assertThat(below.status()).isEqualTo(200);
		assertThat(below.header("X-Tokens")).isNull();
		assertThat(below.header("RateLimit-Remaining")).as("the estimate of 5 refunded down to 2").isEqualTo("98");
		Answer above = get("/tokens/b", "header-client", "X-Report", "30");
		assertThat(above.header("RateLimit-Remaining")).as("30 charged, 5 of them on admission").isEqualTo("68");
		double unreadable = counted(RateLimitSettlementMetrics.UNREADABLE_COST, "tokens", "reason",
				"header-malformed");
		Answer malformed = get("/tokens/c", "header-client", "X-Report", "a lot");
		assertThat(malformed.status()).isEqualTo(200);
		assertThat(malformed.header("X-Tokens")).isNull();
		assertThat(malformed.header("RateLimit-Remaining")).as("the estimate stands").isEqualTo("63");
		assertThat(counted(RateLimitSettlementMetrics.UNREADABLE_COST, "tokens", "reason", "header-malformed"))
			.isEqualTo(unreadable + 1);
	}

	@Test
	void aCostInAJsonBodyReplacesTheEstimateAndTheBodyPassesUnchanged() {
		Answer answer = get("/llm/json", "json-client", "X-Report", "42");
		assertThat(answer.status()).isEqualTo(200);
		assertThat(answer.body()).isEqualTo(usage("42").getBytes(StandardCharsets.UTF_8));
		assertThat(answer.header("RateLimit-Remaining")).as("the estimate, when the headers went").isEqualTo("95");
		awaitRemaining("llm", "json-client", 58);
	}

	@Test
	void aCostInAGzipEncodedJsonBodyIsReadAndTheBodyPassesStillEncoded() {
		Answer answer = get("/llm/gzip", "gzip-client", "X-Report", "17");
		assertThat(answer.status()).isEqualTo(200);
		assertThat(answer.header("Content-Encoding")).isEqualTo("gzip");
		assertThat(answer.body()).isEqualTo(Upstream.gzip(usage("17").getBytes(StandardCharsets.UTF_8)));
		awaitRemaining("llm", "gzip-client", 83);
	}

	@Test
	void anEventStreamStreamsUnchangedAndItsLastUsageChargesTheClientIntoDebt() throws IOException {
		HttpResponse<InputStream> response = send("/llm/stream", "stream-client", HttpResponse.BodyHandlers.ofInputStream());
		assertThat(response.statusCode()).isEqualTo(200);
		StringBuilder received = new StringBuilder();
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
			// The first events arrive while the upstream still holds the rest back.
			String first = STREAM.get(0) + STREAM.get(1);
			while (received.length() < first.length()) {
				received.append((char) reader.read());
			}
			assertThat(received.toString()).isEqualTo(first);
			this.streaming.open();
			for (int c = reader.read(); c != -1; c = reader.read()) {
				received.append((char) c);
			}
		}
		assertThat(received.toString()).isEqualTo(String.join("", STREAM));
		// 250 tokens reported on a bucket of 100: 150 in debt.
		awaitRemaining("llm", "stream-client", 0);
		Answer refused = get("/llm/json", "stream-client", "X-Report", "1");
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.header("RateLimit-Remaining")).isEqualTo("0");
		assertThat(refused.header("Retry-After")).isNotNull();
	}

	// concurrency

	@Test
	void aThirdRequestInFlightIsRefusedAndASlotComesBackWhenAnExchangeCompletes() {
		CompletableFuture<Answer> first = getLater("/slots/slow/1", "busy");
		CompletableFuture<Answer> second = getLater("/slots/slow/2", "busy");
		awaitUntil("both in flight at the upstream", () -> this.slow.arrived() >= 2);
		assertThat(inFlight("slots", "busy")).isEqualTo(2);
		assertThat(inFlightGauge("slots")).isEqualTo(2);
		Answer third = get("/slots/fast", "busy");
		assertThat(third.status()).isEqualTo(429);
		assertThat(third.header("Retry-After")).isEqualTo("1");
		assertThat(this.upstream.hits("/slots/fast")).isZero();
		assertThat(get("/slots/fast", "idle").status()).as("another client's slots").isEqualTo(200);
		assertThat(this.slow.releaseOne()).isTrue();
		assertThat(((Answer) CompletableFuture.anyOf(first, second).join()).status()).isEqualTo(200);
		awaitInFlight("slots", "busy", 1);
		assertThat(get("/slots/fast", "busy").status()).isEqualTo(200);
		assertThat(this.slow.releaseOne()).isTrue();
		assertThat(first.join().status()).isEqualTo(200);
		assertThat(second.join().status()).isEqualTo(200);
		awaitInFlight("slots", "busy", 0);
	}

	@Test
	void aSlotComesBackWhenTheUpstreamFails() {
		int arrived = this.failing.arrived();
		CompletableFuture<Answer> failing = getLater("/slots/fail", "failing");
		awaitUntil("in flight at the upstream", () -> this.failing.arrived() > arrived);
		assertThat(inFlight("slots", "failing")).isEqualTo(1);
		assertThat(this.failing.releaseOne()).isTrue();
		assertThat(failing.join().status()).isGreaterThanOrEqualTo(500);
		awaitInFlight("slots", "failing", 0);
	}

	@Test
	void aSlotComesBackWhenTheClientGoesAway() throws IOException {
		int arrived = this.slow.arrived();
		try (Socket leaving = new Socket("127.0.0.1", this.gateway.port())) {
			OutputStream out = leaving.getOutputStream();
			out.write("GET /slots/slow/leaver HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Client: leaver\r\n\r\n"
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			awaitUntil("in flight at the upstream", () -> this.slow.arrived() > arrived);
			assertThat(inFlight("slots", "leaver")).isEqualTo(1);
		}
		awaitInFlight("slots", "leaver", 0);
		assertThat(get("/slots/fast", "leaver").status()).isEqualTo(200);
	}

	@Test
	void aSlotComesBackWhenTheGatewayTimesOut() {
		assertThat(get("/slots-timeout/never", "patient").status()).isEqualTo(504);
		awaitInFlight("slots", "patient", 0);
		assertThat(get("/slots/fast", "patient").status()).isEqualTo(200);
	}

	/**
	 * An OpenAI-style stream: deltas, usage in the last chunk, then {@code [DONE]}.
	 */
	private static final List<String> STREAM = List.of(
			"data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}],\"usage\":null}\n\n",
			"data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}],\"usage\":null}\n\n",
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":200,\"total_tokens\":250}}\n\n",
			"data: [DONE]\n\n");

	private static String usage(String tokens) {
		return "{\"id\":\"x\",\"usage\":{\"prompt_tokens\":1,\"total_tokens\":" + tokens + "},\"object\":\"chat\"}";
	}

	// helpers

	protected int port() {
		return this.gateway.port();
	}

	/**
	 * Another gateway with the same properties: on a shared store, another node of the
	 * fleet.
	 */
	protected ConfigurableApplicationContext startAnotherGateway() {
		return GatewayRunner.application(gatewayProperties().toArray(new String[0])).run();
	}

	protected <T> T bean(Class<T> type) {
		return this.gateway.bean(type);
	}

	protected Answer get(String path, String client, String... headers) {
		return getLater(path, client, headers).join();
	}

	protected CompletableFuture<Answer> getLater(String path, String client, String... headers) {
		return getLater(port(), path, client, headers);
	}

	protected static CompletableFuture<Answer> getLater(int port, String path, String client, String... headers) {
		return http.sendAsync(request(port, path, client, headers), HttpResponse.BodyHandlers.ofByteArray())
			.thenApply(Answer::new);
	}

	private <T> HttpResponse<T> send(String path, String client, HttpResponse.BodyHandler<T> handler) {
		try {
			return http.send(request(port(), path, client), handler);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static HttpRequest request(int port, String path, String client, String... headers) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.header("X-Client", client)
			.timeout(PATIENCE);
		for (int i = 0; i < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		return request.build();
	}

	/**
	 * The requests of {@code client} in flight as the actuator shows its bucket.
	 */
	protected long inFlight(String policy, String client) {
		return ((Number) JsonPath.read(bucket(this.gateway, policy, client), "$.buckets[0].limits[0].state.inFlight"))
			.longValue();
	}

	private long remaining(String policy, String client) {
		return ((Number) JsonPath.read(bucket(this.gateway, policy, client), "$.buckets[0].limits[0].remaining"))
			.longValue();
	}

	private static String bucket(GatewayRunner gateway, String policy, String client) {
		byte[] body = gateway.client()
			.get()
			.uri("/actuator/ratelimits/" + policy + "/" + client)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.returnResult()
			.getResponseBodyContent();
		return new String(body, StandardCharsets.UTF_8);
	}

	protected double inFlightGauge(String policy) {
		return bean(MeterRegistry.class).get(RateLimitSettlementMetrics.IN_FLIGHT).tag("policy", policy).gauge().value();
	}

	/**
	 * The sum of the counters {@code name} of {@code policy} with the tag.
	 */
	protected double counted(String name, String policy, String tag, String value) {
		return bean(MeterRegistry.class).find(name)
			.tag("policy", policy)
			.tag(tag, value)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	private void awaitInFlight(String policy, String client, long inFlight) {
		awaitUntil("in flight " + inFlight, () -> inFlight(policy, client) == inFlight);
		if (inFlight == 0) {
			awaitUntil("the gauge at 0", () -> inFlightGauge(policy) == 0);
		}
	}

	private void awaitRemaining(String policy, String client, long remaining) {
		awaitUntil("remaining " + remaining, () -> remaining(policy, client) == remaining);
	}

	/**
	 * Wait for {@code condition} of the gateway, which no event announces.
	 */
	protected static void awaitUntil(String what, Callable<Boolean> condition) {
		await(what).atMost(PATIENCE).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10)).until(condition);
	}

	/**
	 * A response with its whole body.
	 */
	protected record Answer(HttpResponse<byte[]> response) {

		public int status() {
			return this.response.statusCode();
		}

		public String header(String name) {
			return this.response.headers().firstValue(name).orElse(null);
		}

		public byte[] body() {
			return this.response.body();
		}

	}

}
