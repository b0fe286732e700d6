package dev.ratelimit.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole way a running gateway takes a changed limit: the configuration file is
 * edited, {@code POST /actuator/refresh} reloads it, and the next request is judged by
 * the new limit.
 */
class RefreshEndpointEndToEndTests {

	@TempDir
	Path directory;

	@Test
	void aLimitChangedInTheConfigurationFileAppliesAfterTheRefreshEndpointIsCalled() throws IOException {
		Path config = this.directory.resolve("limits.properties");
		write(config, 1);
		try (Upstream upstream = Upstream.start();
				GatewayRunner gateway = gateway(config, upstream, "refresh")) {
			assertThat(status(gateway)).isEqualTo(200);
			assertThat(status(gateway)).isEqualTo(429);
			write(config, 3);
			gateway.client().post().uri("/actuator/refresh").exchange().expectStatus().isOk().expectBody(Void.class);
			assertThat(status(gateway)).isEqualTo(200);
			assertThat(status(gateway)).isEqualTo(200);
			assertThat(status(gateway)).isEqualTo(429);
		}
	}

	@Test
	void aRejectedChangeIsShownByTheEndpointAndCountedThoughTheRefreshAnswers200() throws IOException {
		Path config = this.directory.resolve("limits.properties");
		write(config, 1);
		try (Upstream upstream = Upstream.start();
				GatewayRunner gateway = gateway(config, upstream, "refresh,ratelimits,metrics")) {
			assertThat(read(gateway, "/actuator/ratelimits").read("$", Map.class)).doesNotContainKey("lastReload");
			Instant before = Instant.now();
			write(config, 0);
			// Spring Cloud's status, whatever became of the change.
			gateway.client().post().uri("/actuator/refresh").exchange().expectStatus().isOk().expectBody(Void.class);
			DocumentContext rejected = read(gateway, "/actuator/ratelimits");
			assertThat(rejected.read("$.lastReload.outcome", String.class)).isEqualTo("rejected");
			assertThat(Instant.parse(rejected.read("$.lastReload.at", String.class))).isBetween(before, Instant.now());
			assertThat(rejected.read("$.lastReload.changedKeys", List.class))
				.containsExactly("ratelimit.policies.orders.tiers.anonymous[0].limit");
			assertThat(rejected.read("$.lastReload.problems[0].property", String.class))
				.isEqualTo("ratelimit.policies.orders.tiers.anonymous[0].limit");
			assertThat(rejected.read("$.lastReload.problems[0].value", String.class)).isEqualTo("0");
			assertThat(rejected.read("$.lastReload.problems[0].rule", String.class)).isNotBlank();
			assertThat(reloads(gateway, "rejected")).isEqualTo(1);
			assertThat(reloads(gateway, "accepted")).isZero();
			write(config, 2);
			gateway.client().post().uri("/actuator/refresh").exchange().expectStatus().isOk().expectBody(Void.class);
			DocumentContext accepted = read(gateway, "/actuator/ratelimits");
			assertThat(accepted.read("$.lastReload.outcome", String.class)).isEqualTo("accepted");
			assertThat(accepted.read("$.lastReload.problems", List.class)).isEmpty();
			assertThat(reloads(gateway, "accepted")).isEqualTo(1);
			assertThat(reloads(gateway, "rejected")).isEqualTo(1);
		}
	}

	/**
	 * A gateway reading its policy from {@code config}, its {@code orders} route limited
	 * by it, with the actuator endpoints {@code exposed}.
	 */
	private static GatewayRunner gateway(Path config, Upstream upstream, String exposed) {
		return GatewayRunner.start("spring.config.import=file:" + config,
				"management.endpoints.web.exposure.include=" + exposed,
				"spring.cloud.gateway.server.webflux.routes[0].id=orders",
				"spring.cloud.gateway.server.webflux.routes[0].uri=" + upstream.uri(),
				"spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/orders/**",
				"spring.cloud.gateway.server.webflux.routes[0].filters[0]=RateLimit=orders");
	}

	private static DocumentContext read(GatewayRunner gateway, String path) {
		String body = gateway.client()
			.get()
			.uri(path)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		return JsonPath.parse(body);
	}

	private static double reloads(GatewayRunner gateway, String outcome) {
		return read(gateway, "/actuator/metrics/ratelimit.reloads?tag=outcome:" + outcome)
			.read("$.measurements[0].value", Double.class);
	}

	private static void write(Path config, int limit) throws IOException {
		Files.writeString(config, String.join("\n", "ratelimit.policies.orders.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.orders.tiers.anonymous[0].limit=" + limit,
				"ratelimit.policies.orders.tiers.anonymous[0].window=1h", ""));
	}

	private static int status(GatewayRunner gateway) {
		return gateway.client()
			.get()
			.uri("/orders/1")
			.header("X-API-Key", "key-1")
			.exchange()
			.expectBody()
			.returnResult()
			.getStatus()
			.value();
	}

}
