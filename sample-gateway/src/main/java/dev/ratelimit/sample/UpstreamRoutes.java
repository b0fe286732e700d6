package dev.ratelimit.sample;

import java.time.Instant;
import java.util.Map;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;

import static org.springframework.web.reactive.function.server.RouterFunctions.route;

/**
 * The upstream service the gateway protects: answers any GET under {@code /upstream}
 * with a small JSON document.
 */
@Configuration(proxyBeanMethods = false)
class UpstreamRoutes {

	@Bean
	RouterFunction<ServerResponse> upstream() {
		return route().GET("/upstream/**", (request) -> ServerResponse.ok()
			.bodyValue(Map.of("service", "sample-upstream", "path", request.path(), "at", Instant.now().toString())))
			.build();
	}

}
