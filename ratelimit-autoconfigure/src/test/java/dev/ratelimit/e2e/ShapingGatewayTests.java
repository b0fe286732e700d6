package dev.ratelimit.e2e;

import java.io.IOException;
import java.io.OutputStream;
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
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.web.HeldRequests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Shaping through a real gateway, on the real clock, to a real upstream that records
 * when requests reach it: route {@code /shaped/**} is limited by a leaky bucket of 5
 * draining 2 per second that holds requests up to 3 s, per {@code X-Client}; route
 * {@code /open/**} is not limited. Schedules are read from the upstream's arrival
 * instants, with tolerances that still tell a request held 0.5 s from one forwarded
 * at once.
 */
class ShapingGatewayTests {

	private static final long MILLI = 1_000_000L;

	/**
	 * How long a condition on the gateway is awaited: far longer than any hold here.
	 */
	private static final Duration PATIENCE = Duration.ofSeconds(20);

	private static final Upstream upstream = Upstream.start();

	private static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	private static ConfigurableApplicationContext gateway;

	@BeforeAll
	static void startGateway() {
		gateway = gateway();
		// The first requests through a new gateway start its routes and connections, and
		// its first 429 its JSON encoder: not in the schedules measured.
		assertThat(all(burst(gateway, "/shaped/warm-up/", "warm-up", 6))).extracting(Answer::status)
			.containsOnly(200, 429);
		assertThat(send(gateway, "/open/warm-up", "warm-up").join().status()).isEqualTo(200);
	}

	@AfterAll
	static void stop() {
		gateway.close();
		upstream.close();
	}

	@Test
	void aBurstReachesTheUpstreamAtTheDrainRateAndWhatDoesNotFitIsRefusedAtOnce() {
		List<Answer> answers = all(burst(gateway, "/shaped/burst/", "burst", 8));
		List<Answer> forwarded = answers.stream().filter((answer) -> answer.status() == 200).toList();
		List<Answer> refused = answers.stream().filter((answer) -> answer.status() == 429).toList();
		assertThat(forwarded).hasSize(5);
		assertThat(refused).hasSize(3);
		List<Long> arrivals = upstream.arrivals("/shaped/burst/");
		assertThat(arrivals).hasSize(5);
		long firstSent = answers.stream().mapToLong(Answer::sentAt).min().getAsLong();
		for (int i = 1; i < arrivals.size(); i++) {
			// Released when the queue ahead has drained, counted from the first decision,
			// which came after the first send: never early, where unshaped all five arrive
			// within milliseconds. A stalled node makes a release late, never early, so
			// only this bound is the schedule's.
			assertThat(arrivals.get(i) - firstSent).as("arrival %d after the first send", i)
				.isGreaterThanOrEqualTo(i * 500 * MILLI);
		}
		// Headers written when each was judged: the queue with it in.
		assertThat(forwarded).extracting((answer) -> answer.header("RateLimit-Remaining"))
			.containsExactlyInAnyOrder("4", "3", "2", "1", "0");
		for (Answer answer : refused) {
			// Until one place has drained: 0.5 s, in whole seconds.
			assertThat(answer.header("Retry-After")).isEqualTo("1");
			assertThat(answer.answeredAt()).as("refused before the first held request was released")
				.isLessThan(arrivals.get(1));
		}
	}

	@Test
	void aClientThatGoesAwayWhileHeldNeverReachesTheUpstreamAndItsPlaceIsGivenBack() throws IOException {
		HeldRequests held = gateway.getBean(HeldRequests.class);
		assertThat(send(gateway, "/shaped/leaver/0", "leaver").join().status()).isEqualTo(200);
		CompletableFuture<Answer> second = send(gateway, "/shaped/leaver/1", "leaver");
		// Judged: held, or already released to the upstream.
		awaitUntil("the second request judged", () -> held.held() + upstream.arrivals("/shaped/leaver/1").size() == 1);
		long releaseWithLeaver;
		try (Socket leaving = new Socket("127.0.0.1", port(gateway))) {
			OutputStream out = leaving.getOutputStream();
			out.write(("GET /shaped/leaver/2 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Client: leaver\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			awaitUntil("the leaving request held",
					() -> held.held() + upstream.arrivals("/shaped/leaver/1").size() == 2);
			releaseWithLeaver = releaseOfOneJudgedNow("leaver");
		}
		// Given back, its place brings the release of a request judged now 0.5 s closer.
		awaitUntil("the place given back", () -> releaseOfOneJudgedNow("leaver") < releaseWithLeaver - 250 * MILLI);
		Answer later = send(gateway, "/shaped/leaver/3", "leaver").join();
		assertThat(later.status()).isEqualTo(200);
		assertThat(second.join().status()).isEqualTo(200);
		// The one that went away would have been released 0.5 s after the second, before
		// the later one.
		assertThat(upstream.arrivals("/shaped/leaver/2")).isEmpty();
		assertThat(upstream.arrivals("/shaped/leaver/3")).hasSize(1);
		assertThat(held.held()).isZero();
	}

	@Test
	void whileRequestsAreHeldAnUnshapedRouteIsAnsweredAtOnce() {
		HeldRequests held = gateway.getBean(HeldRequests.class);
		List<CompletableFuture<Answer>> crowd = new ArrayList<>();
		for (int client = 0; client < 10; client++) {
			crowd.addAll(burst(gateway, "/shaped/crowd/" + client + "/", "crowd-" + client, 5));
		}
		// Every one judged: forwarded at once or after its hold, or held.
		awaitUntil("every request judged", () -> held.held() + upstream.arrivals("/shaped/crowd/").size() >= 50);
		assertThat(held.held()).isPositive();
		Answer open = send(gateway, "/open/while-held", "anyone").join();
		assertThat(held.held()).as("still held when the other route answered").isPositive();
		assertThat(open.status()).isEqualTo(200);
		// Not queued behind them: answered while they are still held, before the longest
		// hold (2 s) is over.
		assertThat(open.answeredAt() - open.sentAt()).as("answered in less than the longest hold")
			.isLessThan(2000 * MILLI);
		assertThat(all(crowd)).extracting(Answer::status).containsOnly(200);
		assertThat(upstream.arrivals("/shaped/crowd/")).hasSize(50);
		assertThat(held.held()).isZero();
	}

	@Test
	void beyondMaxHeldRequestsARequestIsAnswered503WithRetryAfterAndAProblem() {
		try (ConfigurableApplicationContext capped = gateway("ratelimit.shaping.max-held-requests=2")) {
			List<Answer> answers = all(burst(capped, "/shaped/capped/", "capped", 5));
			List<Answer> unavailable = answers.stream().filter((answer) -> answer.status() == 503).toList();
			assertThat(answers).extracting(Answer::status).filteredOn((status) -> status == 200).hasSize(3);
			assertThat(unavailable).hasSize(2);
			List<Long> arrivals = upstream.arrivals("/shaped/capped/");
			assertThat(arrivals).hasSize(3);
			for (Answer answer : unavailable) {
				// When it would have been released, in whole seconds: 1 s to 2 s. The bucket
				// judges the burst in one order and the held places are taken in the order the
				// requests reach them, on two event loops, so the turned away may be any of
				// those judged to wait 0.5 s to 2 s (2 s while a turned-away unit is not given back).
				assertThat(answer.header("Retry-After")).isIn("1", "2");
				assertThat(answer.header("Content-Type")).isEqualTo("application/problem+json");
				assertThat((Integer) JsonPath.read(answer.body(), "$.status")).isEqualTo(503);
				assertThat((String) JsonPath.read(answer.body(), "$.detail"))
					.isEqualTo("This gateway already holds as many requests as it may (2)");
				assertThat(answer.answeredAt()).as("answered before the first held request was released")
					.isLessThan(arrivals.get(1));
			}
			assertThat(capped.getBean(HeldRequests.class).held()).isZero();
		}
	}

	/**
	 * A gateway on the real clock, routing to the recording upstream, with
	 * {@code properties} on top.
	 */
	private static ConfigurableApplicationContext gateway(String... properties) {
		String limit = "ratelimit.policies.payments.tiers.anonymous[0].";
		String routes = "spring.cloud.gateway.server.webflux.routes";
		return new SpringApplicationBuilder(ShapingGatewayApplication.class).web(WebApplicationType.REACTIVE)
			.properties("server.port=0", "spring.main.banner-mode=off",
					"ratelimit.policies.payments.key=header:X-Client", limit + "algorithm=leaky-bucket",
					limit + "capacity=5", limit + "drain-rate=2", limit + "shaping.max-delay=3s",
					routes + "[0].id=shaped", routes + "[0].uri=" + upstream.uri(),
					routes + "[0].predicates[0]=Path=/shaped/**", routes + "[0].filters[0]=RateLimit=payments",
					routes + "[1].id=open", routes + "[1].uri=" + upstream.uri(),
					routes + "[1].predicates[0]=Path=/open/**")
			.properties(properties)
			.run();
	}

	/**
	 * When a request of {@code client} judged now would be released, by
	 * {@link System#nanoTime()}: its bucket's hold from now, as the gateway's store shows
	 * it.
	 */
	private static long releaseOfOneJudgedNow(String client) {
		RateLimitPolicy policy = gateway.getBean(RateLimitPolicies.class).policy("payments");
		BucketSnapshot bucket = gateway.getBean(BucketStores.class)
			.inspector(policy)
			.bucket(policy, client)
			.blockFirst();
		double hold = bucket.limits().get(0).state().get("hold").doubleValue();
		return System.nanoTime() + (long) (hold * 1_000_000_000L);
	}

	/**
	 * Wait for {@code condition} of the gateway, which no event announces.
	 */
	private static void awaitUntil(String what, Callable<Boolean> condition) {
		await(what).atMost(PATIENCE).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5)).until(condition);
	}

	private static int port(ConfigurableApplicationContext gateway) {
		return ((WebServerApplicationContext) gateway).getWebServer().getPort();
	}

	/**
	 * {@code count} requests of one client sent at once, to paths {@code prefix} and
	 * their number.
	 */
	private static List<CompletableFuture<Answer>> burst(ConfigurableApplicationContext gateway, String prefix,
			String client, int count) {
		List<CompletableFuture<Answer>> burst = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			burst.add(send(gateway, prefix + i, client));
		}
		return burst;
	}

	private static CompletableFuture<Answer> send(ConfigurableApplicationContext gateway, String path, String client) {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(gateway) + path))
			.header("X-Client", client)
			.timeout(PATIENCE)
			.build();
		long sentAt = System.nanoTime();
		return http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
			.thenApply((response) -> new Answer(response, sentAt, System.nanoTime()));
	}

	private static List<Answer> all(List<CompletableFuture<Answer>> answers) {
		return answers.stream().map(CompletableFuture::join).toList();
	}

	/**
	 * A response, when its request was sent and when it came, by
	 * {@link System#nanoTime()}, as the upstream's arrivals.
	 */
	private record Answer(HttpResponse<String> response, long sentAt, long answeredAt) {

		int status() {
			return this.response.statusCode();
		}

		String header(String name) {
			return this.response.headers().firstValue(name).orElse(null);
		}

		String body() {
			return this.response.body();
		}

	}

	/**
	 * A gateway with nothing but auto-configuration: the stores judge on the real clock.
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ShapingGatewayApplication {

	}

}
