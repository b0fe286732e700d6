package dev.ratelimit.e2e;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A gateway with nothing but auto-configuration, a hand-moved clock and a listener
 * that records decisions.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class GatewayTestApplication {

	@Bean
	ManualClock manualClock() {
		return new ManualClock();
	}

	@Bean
	RecordingListener recordingListener() {
		return new RecordingListener();
	}

}
