package dev.ratelimit.e2e;

import dev.ratelimit.support.ManualClock;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;

/**
 * A gateway with nothing but auto-configuration, a hand-moved clock, a listener that
 * records decisions and a key resolver that policies may name.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class GatewayTestApplication {

	@Bean
	ManualClock manualClock() {
		return new ManualClock();
	}

	@Bean
	KeyResolver tenantKeyResolver() {
		return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Tenant"));
	}

	@Bean
	RecordingListener recordingListener() {
		return new RecordingListener();
	}

}
