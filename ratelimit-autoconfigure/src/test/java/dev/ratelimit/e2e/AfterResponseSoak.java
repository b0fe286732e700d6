package dev.ratelimit.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.actuate.RateLimitTotals;
import dev.ratelimit.metrics.RateLimitSettlementMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The issue's soak, on the store a subclass configures: for a bounded time, many
 * clients at once through routes limited by a concurrency policy ({@code slots}, 3 in
 * flight per client) together with a cost-from-response policy, or by one policy whose
 * tier has both. Every request reports its cost in a JSON body or in an event stream's last
 * event, estimated at 10 on admission; the upstream answers at its own pace and fails 5%
 * of its requests (a reset before the answer, a reset in the middle of the body, a 500
 * that reports a cost), and 10% of the clients go away at a random point (while their
 * request is decided, after the headers, within the body), closing or resetting their
 * connection. At the end every slot in flight has come back (the store, the actuator's
 * totals and the gauge say 0) and the units charged minus those refunded are exactly the
 * costs the upstream reported minus their estimates.
 * <p>
 * So that the upstream's count is the gateway's, a client that is going to leave says
 * so ({@code X-Leaves}) and the upstream never reports a cost to it: a cost written just
 * as a client leaves may or may not have been read, and no one could tell which. Such a
 * client goes through routes of its own ({@code /soak/la/**}, {@code /soak/lb/**}),
 * sharing the {@code slots} policy, with cost policies of their own: a request whose
 * client left while it was decided gives its estimate back, which the upstream never
 * saw, so those policies are only shown to charge nothing.
 */
public abstract class AfterResponseSoak {

	private static final Duration RUN = Duration.ofSeconds(6);

	private static final Duration PATIENCE = Duration.ofSeconds(20);

	private static final int CLIENTS = 32;

	private static final int KEYS = 8;

	private static final long ESTIMATE = 10;

	private static final String ROUTES = "spring.cloud.gateway.server.webflux.routes";

	/**
	 * The costs the upstream reported, per route, and how many times.
	 */
	private final Map<String, Reported> reported = Map.of("a", new Reported(), "b", new Reported());

	private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();

	private final LongAdder upstreamFailures = new LongAdder();

	protected abstract List<String> storeProperties();

	protected void stopStore() {
	}

	@Test
	void everySlotComesBackAndEveryReportedCostIsAccounted() throws Exception {
		try (Upstream upstream = Upstream.start().answer("/soak/", this::answer);
				GatewayRunner gateway = GatewayRunner.start(properties(upstream).toArray(new String[0]))) {
			run(gateway.port());
			assertThat(outcome("200")).as("answered").isPositive();
			assertThat(outcome("429")).as("refused for slots").isPositive();
			assertThat(outcome("left")).as("clients that went away").isPositive();
			assertThat(this.upstreamFailures.sum()).as("upstream failures").isPositive();
			assertThat(outcome("stuck")).as("clients that waited for an answer that never came: %s", this.outcomes)
				.isZero();
			MeterRegistry registry = gateway.bean(MeterRegistry.class);
			RateLimitTotals totals = gateway.bean(RateLimitTotals.class);
			await("every slot back").atMost(PATIENCE).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
				for (String policy : List.of("slots", "combined", "combined-left")) {
					for (int key = 0; key < KEYS; key++) {
						assertThat(inFlight(gateway, policy, "client-" + key)).as("%s in flight of client-%d", policy,
								key).isZero();
					}
					assertThat(totals.inFlight(policy)).as("%s in flight in the actuator's totals", policy).isZero();
					assertThat(registry.get(RateLimitSettlementMetrics.IN_FLIGHT).tag("policy", policy).gauge().value())
						.as("%s in-flight gauge", policy)
						.isZero();
				}
			});
			await("every reported cost settled").atMost(PATIENCE)
				.pollInterval(Duration.ofMillis(50))
				.untilAsserted(() -> {
					assertThat(settledNet(registry, "tokens")).as("tokens charged minus refunded")
						.isEqualTo(this.reported.get("a").net());
					assertThat(settledNet(registry, "combined")).as("combined charged minus refunded")
						.isEqualTo(this.reported.get("b").net());
					for (String policy : List.of("tokens-left", "combined-left")) {
						assertThat(units(registry, policy, "charged")).as("%s charged, no cost reported", policy)
							.isZero();
					}
				});
			assertThat(this.reported.get("a").count.get()).isPositive();
			assertThat(this.reported.get("b").count.get()).isPositive();
		}
		finally {
			stopStore();
		}
	}

	private List<String> properties(Upstream upstream) {
		List<String> properties = new ArrayList<>(List.of("ratelimit.actuator.show-keys=always",
				"management.endpoints.web.exposure.include=ratelimits",
				"management.endpoint.ratelimits.access=unrestricted"));
		String slots = "ratelimit.policies.slots.";
		properties.addAll(List.of(slots + "key=header:X-Client", slots + "tiers.anonymous[0].algorithm=concurrency",
				slots + "tiers.anonymous[0].limit=3"));
		for (String policy : List.of("tokens", "combined", "tokens-left", "combined-left")) {
			String prefix = "ratelimit.policies." + policy + ".";
			properties.addAll(List.of(prefix + "key=header:X-Client", prefix + "cost=" + ESTIMATE,
					prefix + "cost-from-response=json:/usage/total_tokens",
					prefix + "tiers.anonymous[0].algorithm=token-bucket",
					prefix + "tiers.anonymous[0].capacity=1000000000", prefix + "tiers.anonymous[0].refill-rate=1",
					prefix + "tiers.anonymous[0].refill-period=1d"));
		}
		for (String policy : List.of("combined", "combined-left")) {
			String combined = "ratelimit.policies." + policy + ".tiers.anonymous[1].";
			properties.addAll(List.of(combined + "algorithm=concurrency", combined + "limit=3"));
		}
		route(properties, 0, upstream, "a", "slots", "tokens");
		route(properties, 1, upstream, "b", "combined");
		route(properties, 2, upstream, "la", "slots", "tokens-left");
		route(properties, 3, upstream, "lb", "combined-left");
		properties.addAll(storeProperties());
		return properties;
	}

	private static void route(List<String> properties, int index, Upstream upstream, String id,
			String... policies) {
		String route = ROUTES + "[" + index + "].";
		properties.addAll(List.of(route + "id=" + id, route + "uri=" + upstream.uri(),
				route + "predicates[0]=Path=/soak/" + id + "/**"));
		properties.add(route + "filters[0]=RateLimit=" + String.join(",", policies));
	}

	/**
	 * The clients, until the run is over.
	 */
	private void run(int port) throws Exception {
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
		long end = System.nanoTime() + RUN.toNanos();
		try {
			List<Future<?>> running = new ArrayList<>();
			for (int client = 0; client < CLIENTS; client++) {
				String key = "client-" + (client % KEYS);
				running.add(clients.submit(() -> {
					while (System.nanoTime() < end) {
						request(http, port, key);
					}
					return null;
				}));
			}
			for (Future<?> client : running) {
				client.get();
			}
		}
		finally {
			clients.shutdownNow();
		}
	}

	private void request(HttpClient http, int port, String key) throws InterruptedException {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		boolean leaves = random.nextInt(10) == 0;
		String path = "/soak/" + (leaves ? "l" : "") + (random.nextBoolean() ? "a" : "b") + "/"
				+ (random.nextBoolean() ? "json" : "stream");
		try {
			if (leaves) {
				leave(port, path, key, random);
				count("left");
				return;
			}
			// The request's timeout bounds only its headers: the whole answer is awaited
			// for as long, so that a body that never ends fails the soak rather than hangs it.
			HttpResponse<byte[]> response = http
				.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
					.header("X-Client", key)
					.timeout(PATIENCE)
					.build(), HttpResponse.BodyHandlers.ofByteArray())
				.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
			count(String.valueOf(response.statusCode()));
		}
		catch (TimeoutException | SocketTimeoutException ex) {
			stuck(leaves, path);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof HttpTimeoutException) {
				stuck(leaves, path);
			}
			else {
				count("cut");
			}
		}
		catch (IOException ex) {
			count("cut");
		}
	}

	/**
	 * A client that goes away: just after sending, once the headers came, or within the
	 * body; closing its connection or resetting it.
	 */
	private static void leave(int port, String path, String key, ThreadLocalRandom random) throws IOException {
		try (Socket socket = new Socket("127.0.0.1", port)) {
			socket.setSoTimeout((int) PATIENCE.toMillis());
			if (random.nextBoolean()) {
				socket.setSoLinger(true, 0);
			}
			OutputStream out = socket.getOutputStream();
			out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Client: " + key + "\r\nX-Leaves: yes\r\n"
					+ "Connection: close\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			// Closed after its answer, when one comes first: a read past its end ends.
			int point = random.nextInt(3);
			if (point > 0) {
				InputStream in = socket.getInputStream();
				boolean more = readHeaders(in);
				if (point > 1 && more) {
					in.read();
				}
			}
		}
	}

	/**
	 * Read up to the end of the headers; {@code false} when the connection ended first.
	 */
	private static boolean readHeaders(InputStream in) throws IOException {
		int matched = 0;
		byte[] end = { '\r', '\n', '\r', '\n' };
		while (matched < end.length) {
			int b = in.read();
			if (b == -1) {
				return false;
			}
			matched = (b == end[matched]) ? matched + 1 : ((b == '\r') ? 1 : 0);
		}
		return true;
	}

	/**
	 * The upstream: after a pause of its own, fails 5% of requests; to a client that
	 * leaves, starts an answer it never finishes; to any other, answers with a cost,
	 * counted.
	 */
	private Mono<Void> answer(HttpServerRequest request, HttpServerResponse response) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		String route = request.uri().substring("/soak/".length(), request.uri().lastIndexOf('/'));
		boolean stream = request.uri().endsWith("/stream");
		boolean leaves = request.requestHeaders().contains("X-Leaves");
		long cost = random.nextLong(0, 300);
		int failure = (random.nextInt(20) == 0) ? random.nextInt(3) : -1;
		Mono<Void> pause = Mono.delay(Duration.ofMillis(random.nextInt(0, 15))).then();
		return pause.then(Mono.defer(() -> {
			if (failure == 0) {
				this.upstreamFailures.increment();
				Upstream.reset(response);
				return Mono.never();
			}
			if (failure == 1) {
				this.upstreamFailures.increment();
				return start(response, stream).then(Mono.fromRunnable(() -> Upstream.reset(response)))
					.then(Mono.never());
			}
			if (leaves) {
				return start(response, stream).then(Mono.never());
			}
			int status = (failure == 2) ? 500 : 200;
			if (failure == 2) {
				this.upstreamFailures.increment();
			}
			Reported reported = this.reported.get(route);
			String usage = "{\"usage\":{\"total_tokens\":" + cost + "}}";
			if (!stream || failure == 2) {
				reported.add(cost);
				return Mono.from(Upstream.json(status, usage).send(request, response));
			}
			return response.header("Content-Type", "text/event-stream")
				.sendString(Flux.just("data: {\"choices\":[\"a\"]}\n\n", "data: {\"choices\":[\"b\"]}\n\n")
					.concatWith(Mono.fromSupplier(() -> {
						reported.add(cost);
						return "data: " + usage + "\n\n";
					}))
					.concatWith(Mono.just("data: [DONE]\n\n")))
				.then();
		}));
	}

	/**
	 * The start of an answer: its headers and a first chunk of its body, flushed, the
	 * answer left open (a single part, sent as a {@code Mono}, would go as a whole
	 * response with its length).
	 */
	private static Mono<Void> start(HttpServerResponse response, boolean stream) {
		String first = stream ? "data: {\"choices\":[\"a\"]}\n\n" : "{\"id\":\"x\",";
		return response.header("Content-Type", stream ? "text/event-stream" : "application/json")
			.send(Flux.just(first).map((part) -> response.alloc().buffer().writeBytes(part.getBytes(StandardCharsets.UTF_8))),
					(part) -> true)
			.then();
	}

	private static long inFlight(GatewayRunner gateway, String policy, String client) {
		byte[] body = gateway.client()
			.get()
			.uri("/actuator/ratelimits/" + policy + "/" + client)
			.exchange()
			.expectBody()
			.returnResult()
			.getResponseBodyContent();
		if (body == null || body.length == 0) {
			return 0;
		}
		List<Number> inFlight = JsonPath.read(new String(body, StandardCharsets.UTF_8),
				"$.buckets[0].limits[*].state.inFlight");
		return inFlight.stream().mapToLong(Number::longValue).sum();
	}

	private static long settledNet(MeterRegistry registry, String policy) {
		return (long) (units(registry, policy, "charged") - units(registry, policy, "refunded"));
	}

	private static double units(MeterRegistry registry, String policy, String direction) {
		return registry.find(RateLimitSettlementMetrics.SETTLED_UNITS)
			.tag("policy", policy)
			.tag("direction", direction)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	private void stuck(boolean leaves, String path) {
		count("stuck");
		count((leaves ? "stuck leaving " : "stuck ") + path);
	}

	private void count(String outcome) {
		this.outcomes.computeIfAbsent(outcome, (key) -> new LongAdder()).increment();
	}

	private long outcome(String outcome) {
		LongAdder count = this.outcomes.get(outcome);
		return (count != null) ? count.sum() : 0;
	}

	/**
	 * Costs reported to the gateway, and how many.
	 */
	private static final class Reported {

		final AtomicLong sum = new AtomicLong();

		final AtomicLong count = new AtomicLong();

		void add(long cost) {
			this.sum.addAndGet(cost);
			this.count.incrementAndGet();
		}

		/**
		 * What the gateway should have charged beyond the estimates it took.
		 */
		long net() {
			return this.sum.get() - ESTIMATE * this.count.get();
		}

	}

}
