package dev.ratelimit.e2e;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.e2e.PlainWebFluxEndToEndTests.ApiApplication;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Live reload in a plain Spring WebFlux application, started without Spring Cloud
 * Gateway on its class path but with Spring Cloud Context: the web filter of
 * {@code ratelimit.web.routes} judges the next request under the new policies, and a
 * change the web routes cannot work with is refused.
 */
@ExtendWith(OutputCaptureExtension.class)
class PlainWebFluxLiveReloadEndToEndTests {

	private static final String READS = "ratelimit.policies.reads.tiers.anonymous[0].";

	private Class<?> launcher;

	private AutoCloseable application;

	private WebTestClient client;

	@BeforeEach
	void start() throws Exception {
		this.launcher = WithoutGateway.classLoader().loadClass(ApiApplication.class.getName());
		this.application = (AutoCloseable) this.launcher.getMethod("start", String[].class)
			.invoke(null, (Object) new String[] { "ratelimit.policies.reads.key=header:X-Client",
					READS + "algorithm=fixed-window", READS + "limit=2", READS + "window=1h",
					"ratelimit.web.routes[0].id=reads-web", "ratelimit.web.routes[0].paths[0]=/api/**",
					"ratelimit.web.routes[0].policy=reads" });
		int port = (int) this.launcher.getMethod("port", Object.class).invoke(null, this.application);
		this.client = WebTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + port)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	@AfterEach
	void stop() throws Exception {
		this.application.close();
	}

	@Test
	void aRaisedLimitReachesTheWebFilterAndKeepsWhatTheClientSpent() throws Exception {
		assertThat(this.application.getClass().getClassLoader().getResource(
				"org/springframework/cloud/gateway/filter/GatewayFilter.class")).isNull();
		assertThat(send(3)).containsExactly("200 2 1", "200 2 0", "429 2 0");
		change(READS + "algorithm=fixed-window", READS + "limit=4", READS + "window=1h");
		assertThat(send(3)).containsExactly("200 4 1", "200 4 0", "429 4 0");
	}

	@Test
	void aChangeTheWebRouteCannotWorkWithIsRefusedNamingTheRouteAndThePolicy(CapturedOutput output)
			throws Exception {
		change("ratelimit.policies.reads.key=#{@tenantKeyResolver}");
		assertThat(output).contains("Rate limit settings change rejected")
			.contains("ratelimit.web.routes[0].policy (web route 'reads-web', read once at start-up): was 'reads',"
					+ " must name a policy whose key works without Spring Cloud Gateway");
		assertThat(send(3)).containsExactly("200 2 1", "200 2 0", "429 2 0");
	}

	private void change(String... properties) throws Exception {
		Method change = this.launcher.getMethod("changeEnvironment", Object.class, String[].class);
		change.invoke(null, this.application, properties);
	}

	/**
	 * Each response's status, limit and remaining quota, as {@code "200 2 1"}.
	 */
	private List<String> send(int requests) {
		List<String> outcomes = new ArrayList<>();
		for (int i = 0; i < requests; i++) {
			EntityExchangeResult<byte[]> result = this.client.get()
				.uri("/api/items")
				.header("X-Client", "alice")
				.exchange()
				.expectBody()
				.returnResult();
			outcomes.add(QuotaOutcome.of(result));
		}
		return outcomes;
	}

}
