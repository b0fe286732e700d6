package dev.ratelimit.sample;

import dev.ratelimit.support.MonotonicClock;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Time that stands still, so that no window rolls over and no bucket refills mid-test.
 */
@TestConfiguration(proxyBeanMethods = false)
class FrozenClock {

	@Bean
	MonotonicClock frozenClock() {
		return () -> 0L;
	}

}
