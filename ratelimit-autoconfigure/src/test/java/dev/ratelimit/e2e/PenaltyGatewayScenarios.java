package dev.ratelimit.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.actuate.KeyMasker;
import dev.ratelimit.actuate.ShowKeys;
import dev.ratelimit.metrics.RateLimitBlockMetrics;
import dev.ratelimit.metrics.RateLimitRequestMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The penalty box through a real gateway to a real upstream, on the store a subclass
 * configures: policy {@code logins} ({@code /login/**}), keyed by {@code X-Client}, two
 * requests a second, and a breach blocks for an hour, then two hours, forgiven a day
 * after a block. A blocked client gets 429 with {@code Retry-After} the time left and no
 * rate limit headers, even once its bucket has room again, and never reaches the
 * upstream; the actuator lists its block (its key masked) and lifts it; the metrics
 * count the block and the refusals. Each test has clients of its own, so that they
 * share one gateway.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class PenaltyGatewayScenarios {

	/**
	 * How long a condition of the gateway is awaited.
	 */
	protected static final Duration PATIENCE = Duration.ofSeconds(20);

	protected static final String POLICY = "logins";

	private static final String ROUTE = "spring.cloud.gateway.server.webflux.routes[0].";

	private static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	private static final KeyMasker MASKED = new KeyMasker(ShowKeys.NEVER, 4);

	protected final Upstream upstream = Upstream.start();

	private GatewayRunner gateway;

	/**
	 * The properties that put the gateway's policy on the store under test.
	 */
	protected abstract List<String> storeProperties();

	/**
	 * Stop what {@link #storeProperties()} started.
	 */
	protected void stopStore() {
	}

	/**
	 * Let the bucket of {@code client} refill, so that its limits alone would admit it.
	 */
	protected abstract void letTheBucketRefill(String client);

	@BeforeAll
	void startGateway() {
		this.gateway = GatewayRunner.start(gatewayProperties().toArray(new String[0]));
	}

	@AfterAll
	void stop() {
		this.gateway.close();
		this.upstream.close();
		stopStore();
	}

	protected List<String> gatewayProperties() {
		String prefix = "ratelimit.policies." + POLICY + ".";
		List<String> properties = new ArrayList<>(List.of("management.endpoints.web.exposure.include=ratelimits",
				"management.endpoint.ratelimits.access=unrestricted", prefix + "key=header:X-Client",
				prefix + "tiers.anonymous[0].algorithm=fixed-window", prefix + "tiers.anonymous[0].limit=2",
				prefix + "tiers.anonymous[0].window=1s", prefix + "penalty.block-for=1h, 2h",
				prefix + "penalty.forgive-after=1d", ROUTE + "id=login", ROUTE + "uri=" + this.upstream.uri(),
				ROUTE + "predicates[0]=Path=/login/**", ROUTE + "filters[0]=RateLimit=" + POLICY));
		properties.addAll(storeProperties());
		return properties;
	}

	@Test
	void theBreachIsRefusedByItsLimitsWithRetryAfterTheBlock() {
		String client = "breaching";
		double blocks = counted(RateLimitBlockMetrics.BLOCKS, "step", "1");
		Answer breach = breach(client);
		assertThat(breach.status()).isEqualTo(429);
		assertThat(breach.header("Retry-After")).isEqualTo("3600");
		assertThat(breach.header("RateLimit-Remaining")).isEqualTo("0");
		assertThat(breach.header("RateLimit-Policy")).isEqualTo("2;w=1");
		assertThat(JsonPath.<String>read(breach.body(), "$.detail"))
			.startsWith("You have exceeded the rate limit of 2 requests per second. You are blocked until ");
		assertThat(JsonPath.<Integer>read(breach.body(), "$.retryAfter")).isEqualTo(3600);
		assertThat(counted(RateLimitBlockMetrics.BLOCKS, "step", "1")).isEqualTo(blocks + 1);
	}

	@Test
	void aBlockedClientIsRefusedAtOnceEvenOnceItsBucketHasRoomAgain() {
		String client = "blocked";
		breach(client);
		int reached = this.upstream.hits("/login/" + client);
		letTheBucketRefill(client);
		double refused = counted(RateLimitRequestMetrics.REQUESTS, "outcome", "blocked");
		Answer blocked = get(client);
		assertThat(blocked.status()).isEqualTo(429);
		assertThat(Long.parseLong(blocked.header("Retry-After"))).as("the time left, rounded up")
			.isBetween(3590L, 3600L);
		assertThat(blocked.response().headers().map().keySet())
			.noneMatch((name) -> name.toLowerCase().startsWith("ratelimit"));
		String until = JsonPath.read(blocks(client), "$.blocks[0].until");
		assertThat(JsonPath.<String>read(blocked.body(), "$.detail"))
			.isEqualTo("You are blocked until " + until + " for exceeding a rate limit.");
		assertThat(JsonPath.<List<String>>read(blocked.body(), "$.violated-policies")).isEmpty();
		assertThat(this.upstream.hits("/login/" + client)).isEqualTo(reached);
		assertThat(counted(RateLimitRequestMetrics.REQUESTS, "outcome", "blocked")).isEqualTo(refused + 1);
		assertThat(get("another-" + client).status()).isEqualTo(200);
	}

	@Test
	void theActuatorListsBlocksMaskedAndShowsThePenalty() {
		String client = "listed";
		breach(client);
		String listing = actuator("/actuator/ratelimits/" + POLICY);
		List<Map<String, Object>> blocks = JsonPath.read(listing,
				"$.blocks[?(@.key == '" + MASKED.display(client) + "')]");
		assertThat(blocks).singleElement().satisfies((block) -> {
			assertThat(block).containsEntry("tier", "anonymous").containsEntry("step", 1);
			assertThat(((Number) block.get("secondsLeft")).longValue()).isBetween(3590L, 3600L);
			assertThat(Instant.parse((String) block.get("until"))).isNotNull();
		});
		assertThat(JsonPath.<Integer>read(listing, "$.blockedKeys")).isPositive();
		assertThat(JsonPath.<List<String>>read(listing, "$.blocks[*].key")).doesNotContain(client);
		assertThat(JsonPath.<List<Object>>read(blocks(client), "$.blocks")).hasSize(1);
		String overview = actuator("/actuator/ratelimits");
		assertThat(JsonPath.<List<String>>read(overview, "$.policies.logins.penalty.blockFor")).containsExactly("1h",
				"2h");
		assertThat(JsonPath.<String>read(overview, "$.policies.logins.penalty.forgiveAfter")).isEqualTo("1d");
		assertThat(JsonPath.<Integer>read(overview, "$.policies.logins.totals.blocks")).isPositive();
	}

	@Test
	void aLiftedClientIsAdmittedAndALiftWithoutABlockIsNotFound() {
		String client = "lifted";
		breach(client);
		letTheBucketRefill(client);
		assertThat(get(client).status()).isEqualTo(429);
		lift(client).expectStatus().isNoContent();
		lift(client).expectStatus().isNotFound();
		actuatorClient().delete()
			.uri("/actuator/ratelimits/" + POLICY + "/" + client + "/blocks")
			.exchange()
			.expectStatus()
			.isNotFound();
		assertThat(get(client).status()).isEqualTo(200);
	}

	@Test
	void aResetLiftsTheBlockWithTheBuckets() {
		String client = "reset";
		breach(client);
		actuatorClient().delete()
			.uri("/actuator/ratelimits/" + POLICY + "/" + client)
			.exchange()
			.expectStatus()
			.isNoContent();
		assertThat(get(client).status()).isEqualTo(200);
	}

	/**
	 * Requests of {@code client} until one is refused: the breach.
	 */
	protected Answer breach(String client) {
		return breach(port(), client);
	}

	protected static Answer breach(int port, String client) {
		for (int i = 0; i < 10; i++) {
			Answer answer = get(port, client);
			if (answer.status() != 200) {
				return answer;
			}
		}
		throw new AssertionError(client + " was never refused");
	}

	protected Answer get(String client) {
		return get(port(), client);
	}

	protected static Answer get(int port, String client) {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/login/" + client))
			.header("X-Client", client)
			.timeout(PATIENCE)
			.build();
		try {
			return new Answer(http.send(request, HttpResponse.BodyHandlers.ofString()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * The client's view in the actuator: its buckets and blocks.
	 */
	protected String blocks(String client) {
		return actuator("/actuator/ratelimits/" + POLICY + "/" + client);
	}

	protected WebTestClient.ResponseSpec lift(String client) {
		return actuatorClient().delete().uri("/actuator/ratelimits/" + POLICY + "/" + client + "/block").exchange();
	}

	protected String actuator(String path) {
		byte[] body = actuatorClient().get()
			.uri(path)
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.OK)
			.expectBody()
			.returnResult()
			.getResponseBodyContent();
		return new String(body, StandardCharsets.UTF_8);
	}

	private WebTestClient actuatorClient() {
		return this.gateway.client();
	}

	/**
	 * The sum of the counters {@code name} of the policy with the tag.
	 */
	protected double counted(String name, String tag, String value) {
		return bean(MeterRegistry.class).find(name)
			.tag("policy", POLICY)
			.tag(tag, value)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	protected int port() {
		return this.gateway.port();
	}

	protected <T> T bean(Class<T> type) {
		return this.gateway.bean(type);
	}

	/**
	 * Another gateway with the same properties: on a shared store, another node of the
	 * fleet.
	 */
	protected ConfigurableApplicationContext startAnotherGateway() {
		return GatewayRunner.application(gatewayProperties().toArray(new String[0])).run();
	}

	/**
	 * Wait for {@code condition} of the gateway, which no event announces.
	 */
	protected static void awaitUntil(String what, Callable<Boolean> condition) {
		await(what).atMost(PATIENCE).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20)).until(condition);
	}

	/**
	 * A response with its whole body.
	 */
	protected record Answer(HttpResponse<String> response) {

		public int status() {
			return this.response.statusCode();
		}

		public String header(String name) {
			return this.response.headers().firstValue(name).orElse(null);
		}

		public String body() {
			return this.response.body();
		}

	}

}
