package dev.ratelimit.actuate.gateway;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

import static org.springframework.web.reactive.function.server.RequestPredicates.GET;

/**
 * A gateway with nothing but auto-configuration and an upstream of its own that the
 * routes forward to; {@code application-actuator.yml} holds its routes and policies.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ActuatorGatewayApplication {

	@Bean
	RouterFunction<ServerResponse> upstream() {
		return RouterFunctions.route(GET("/upstream"), (request) -> ServerResponse.ok().bodyValue("upstream"));
	}

}
