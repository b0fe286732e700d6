package dev.ratelimit.shaping;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A gateway of nothing but auto-configuration and a listener noting the holds it
 * decides. Not the tests' gateway application: its hand-moved clock would stop the
 * buckets' drain while the holds wait on real timers.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ShapingGatewayApplication {

	@Bean
	DecidedHolds decidedHolds() {
		return new DecidedHolds();
	}

}
