package dev.ratelimit.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

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
				GatewayRunner gateway = GatewayRunner.start("spring.config.import=file:" + config,
						"management.endpoints.web.exposure.include=refresh",
						"spring.cloud.gateway.server.webflux.routes[0].id=orders",
						"spring.cloud.gateway.server.webflux.routes[0].uri=" + upstream.uri(),
						"spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/orders/**",
						"spring.cloud.gateway.server.webflux.routes[0].filters[0]=RateLimit=orders")) {
			assertThat(status(gateway)).isEqualTo(200);
			assertThat(status(gateway)).isEqualTo(429);
			write(config, 3);
			gateway.client().post().uri("/actuator/refresh").exchange().expectStatus().isOk().expectBody(Void.class);
			assertThat(status(gateway)).isEqualTo(200);
			assertThat(status(gateway)).isEqualTo(200);
			assertThat(status(gateway)).isEqualTo(429);
		}
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
