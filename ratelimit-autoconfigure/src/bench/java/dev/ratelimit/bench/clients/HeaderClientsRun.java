package dev.ratelimit.bench.clients;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.client.RateLimitAwareRequestInterceptor;

import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * N clients against the sample gateway's {@code /api/orders/**} with one API key
 * ({@code demo-free-key}: a token bucket of 10 refilled at 2 per second, and 10,000 a
 * day), each doing units of work (one successful GET each) as fast as it can, for a
 * fixed time: a naive loop that pauses 100 ms after a {@code 429} and sends again,
 * against a RestClient with {@link RateLimitAwareRequestInterceptor} (its own state per
 * client, as separate processes would have). Counts, per minute: the requests the
 * clients sent (a counting interceptor after ours sees every one, retries included), the
 * {@code 429}s among them and the units of work done.
 * <p>
 * Starts the sample's jar ({@code -Dbench.clients.jar}, built by
 * {@code ./mvnw -B -q -pl sample-gateway -am -DskipTests package}) on
 * {@code -Dbench.clients.port} (18080), with the header style
 * {@code -Dbench.clients.headers} (draft-06), and stops it at the end.
 */
public final class HeaderClientsRun {

	private static final String KEY = "demo-free-key";

	private static final Duration NAIVE_PAUSE = Duration.ofMillis(100);

	/**
	 * How long the bucket takes to fill from empty (10 at 2/s), waited before each run.
	 */
	private static final Duration REFILL = Duration.ofSeconds(6);

	private HeaderClientsRun() {
	}

	public static void main(String[] args) throws Exception {
		File jar = new File(System.getProperty("bench.clients.jar"));
		int port = Integer.getInteger("bench.clients.port", 18080);
		String headers = System.getProperty("bench.clients.headers", "draft-06");
		Duration length = Duration.ofSeconds(Integer.getInteger("bench.clients.seconds", 30));
		List<Integer> counts = new ArrayList<>();
		for (String count : System.getProperty("bench.clients.counts", "1,4,16").split(",")) {
			counts.add(Integer.parseInt(count.strip()));
		}
		Process sample = new ProcessBuilder("java", "-jar", jar.getAbsolutePath(), "--server.port=" + port,
				"--ratelimit.headers=" + headers)
			.redirectErrorStream(true)
			.redirectOutput(new File(jar.getParentFile(), "header-clients-sample.log"))
			.start();
		try {
			String base = "http://127.0.0.1:" + port;
			awaitUp(base);
			System.out.printf("headers %s, %d s per run, per minute:%n%n", headers, length.toSeconds());
			System.out.println("| clients | client | requests | 429s | work done | requests per unit of work |");
			System.out.println("| ---: | --- | ---: | ---: | ---: | ---: |");
			for (int n : counts) {
				for (boolean aware : new boolean[] { false, true }) {
					Thread.sleep(REFILL.toMillis());
					Totals totals = run(base, n, aware, length);
					double perMinute = 60.0 / length.toSeconds();
					System.out.printf("| %d | %s | %,.0f | %,.0f | %,.0f | %.1f |%n", n,
							aware ? "RateLimitAwareRequestInterceptor" : "naive loop (100 ms after a 429)",
							totals.requests.get() * perMinute, totals.refused.get() * perMinute,
							totals.work.get() * perMinute, (double) totals.requests.get() / totals.work.get());
				}
			}
		}
		finally {
			sample.destroy();
			sample.waitFor();
		}
	}

	private static Totals run(String base, int clients, boolean aware, Duration length) throws InterruptedException {
		Totals totals = new Totals();
		long deadline = System.nanoTime() + length.toNanos();
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < clients; i++) {
			RestClient client = client(base, aware, totals);
			Thread thread = new Thread(() -> work(client, aware, deadline, totals), "client-" + i);
			thread.start();
			threads.add(thread);
		}
		for (Thread thread : threads) {
			thread.join();
		}
		return totals;
	}

	private static void work(RestClient client, boolean aware, long deadline, Totals totals) {
		while (System.nanoTime() < deadline) {
			int status = client.get().uri("/api/orders/1").header("X-API-Key", KEY).retrieve()
				.onStatus((code) -> true, (request, response) -> {
				})
				.toBodilessEntity()
				.getStatusCode()
				.value();
			if (status == 200) {
				totals.work.incrementAndGet();
			}
			else if (!aware) {
				try {
					Thread.sleep(NAIVE_PAUSE.toMillis());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
	}

	private static RestClient client(String base, boolean aware, Totals totals) {
		ClientHttpRequestInterceptor counting = (request, body, execution) -> {
			ClientHttpResponse response = execution.execute(request, body);
			totals.requests.incrementAndGet();
			if (response.getStatusCode().value() == 429) {
				totals.refused.incrementAndGet();
			}
			return response;
		};
		RestClient.Builder builder = RestClient.builder().baseUrl(base).requestFactory(new JdkClientHttpRequestFactory());
		if (aware) {
			builder.requestInterceptor(RateLimitAwareRequestInterceptor.create());
		}
		return builder.requestInterceptor(counting).build();
	}

	private static void awaitUp(String base) throws InterruptedException {
		HttpClient http = HttpClient.newHttpClient();
		HttpRequest health = HttpRequest.newBuilder(URI.create(base + "/actuator/health")).build();
		long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
		while (System.nanoTime() < deadline) {
			try {
				if (http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
					return;
				}
			}
			catch (IOException ex) {
				// not listening yet
			}
			Thread.sleep(250);
		}
		throw new IllegalStateException("The sample did not start on " + base);
	}

	private static final class Totals {

		final AtomicLong requests = new AtomicLong();

		final AtomicLong refused = new AtomicLong();

		final AtomicLong work = new AtomicLong();

	}

}
