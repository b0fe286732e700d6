package dev.ratelimit.sample;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starts the packaged sample jar, AOT-processed by the build, with Spring AOT on
 * ({@code -Dspring.aot.enabled=true}), as a user would, and drives the anonymous orders
 * route (5 a minute) to a {@code 429}. Runs after {@code package}, under failsafe.
 */
class SampleGatewayAotIT {

	/**
	 * The longest the jar may take to start on a loaded two-core machine before the test
	 * gives up: a bound on a hang, not a measure of start-up time.
	 */
	private static final long START_BOUND_SECONDS = 180;

	private static final int PORT = FreePort.find();

	private static final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	private static Process gateway;

	private static Path log;

	@BeforeAll
	static void startTheAotProcessedJar() throws Exception {
		Path jar = Path.of(System.getProperty("sample.jar"));
		try (JarFile contents = new JarFile(jar.toFile())) {
			// The initializer process-aot generates; without it spring.aot.enabled=true fails.
			assertThat(contents.getEntry(
					"BOOT-INF/classes/dev/ratelimit/sample/SampleGatewayApplication__ApplicationContextInitializer.class"))
				.isNotNull();
		}
		log = jar.resolveSibling("sample-gateway-aot-it.log");
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		gateway = new ProcessBuilder(java, "-Xmx384m", "-Dspring.aot.enabled=true", "-jar", jar.toString(),
				"--server.port=" + PORT)
			.redirectErrorStream(true)
			.start();
		CompletableFuture<Void> started = new CompletableFuture<>();
		Thread reader = new Thread(() -> copyOutput(gateway, log, started), "sample-gateway-output");
		reader.setDaemon(true);
		reader.start();
		started.get(START_BOUND_SECONDS, TimeUnit.SECONDS);
	}

	/**
	 * Copies the gateway's output to {@code log} and completes {@code started} on the
	 * line that says it started, or exceptionally when it exits first.
	 */
	private static void copyOutput(Process process, Path log, CompletableFuture<Void> started) {
		try (BufferedReader output = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
				PrintWriter copy = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true)) {
			String line;
			while ((line = output.readLine()) != null) {
				copy.println(line);
				if (line.contains("Started SampleGatewayApplication")) {
					started.complete(null);
				}
			}
			started.completeExceptionally(new IllegalStateException("The sample exited before it started; see " + log));
		}
		catch (IOException ex) {
			started.completeExceptionally(ex);
		}
	}

	@AfterAll
	static void stop() throws InterruptedException {
		if (gateway != null) {
			gateway.destroy();
			if (!gateway.waitFor(30, TimeUnit.SECONDS)) {
				gateway.destroyForcibly().waitFor();
			}
		}
	}

	@Test
	void startsFromTheGeneratedCode() throws Exception {
		HttpResponse<String> health = get("/actuator/health");
		assertThat(health.statusCode()).isEqualTo(200);
		assertThat(JsonPath.<String>read(health.body(), "$.components.ratelimit.status")).isEqualTo("UP");
		// Spring Boot says so when it runs the AOT-generated initializer.
		assertThat(Files.readString(log)).contains("Starting AOT-processed SampleGatewayApplication");
	}

	@Test
	void anonymousOrdersOverTheLimitGetAProblem() throws Exception {
		// Five a minute in a fixed window: the sixth request of one window is refused, and
		// a window that ends mid-loop lets at most five more through.
		HttpResponse<String> response = null;
		int sent = 0;
		while (sent < 11) {
			response = get("/api/orders/7");
			sent++;
			if (response.statusCode() != 200) {
				break;
			}
			assertThat(JsonPath.<String>read(response.body(), "$.path")).isEqualTo("/upstream/orders/7");
		}
		assertThat(response.statusCode()).as("status after %d requests", sent).isEqualTo(429);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(response.headers().firstValue("RateLimit-Limit")).hasValue("5");
		assertThat(response.headers().firstValue("RateLimit-Remaining")).hasValue("0");
		assertThat(response.headers().firstValue("Retry-After")).isPresent();
		String problem = response.body();
		assertThat(JsonPath.<Integer>read(problem, "$.status")).isEqualTo(429);
		assertThat(JsonPath.<String>read(problem, "$.type"))
			.isEqualTo("https://iana.org/assignments/http-problem-types#quota-exceeded");
		assertThat(JsonPath.<String>read(problem, "$.title")).isEqualTo("Rate limit exceeded");
		assertThat(JsonPath.<String>read(problem, "$.detail"))
			.isEqualTo("You have exceeded the rate limit of 5 requests per minute.");
		assertThat(JsonPath.<List<String>>read(problem, "$['violated-policies']")).containsExactly("orders-anonymous-1");
	}

	private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + PORT + path))
			.timeout(Duration.ofSeconds(30))
			.build();
		return client.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
