package dev.ratelimit.sample;

import java.time.Duration;

import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitRoutesAutoConfiguration;
import dev.ratelimit.support.ManualClock;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.ConfigDataApplicationContextInitializer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The policies of this application's application.yml, judged on a clock that moves
 * only when the test moves it. (docs/testing.md shows this class verbatim.)
 */
class OrdersPolicyTests {

	private final ApplicationContextRunner rateLimits = new ApplicationContextRunner()
		.withInitializer(new ConfigDataApplicationContextInitializer())
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
				RateLimitRoutesAutoConfiguration.class))
		.withBean(ManualClock.class, ManualClock::new);

	@Test
	void anonymousClientsGetFiveRequestsPerMinute() {
		this.rateLimits.run((context) -> {
			ManualClock clock = context.getBean(ManualClock.class);
			RateLimiter<?> orders = context.getBean("ordersRateLimiter", RateLimiter.class);
			clock.advanceToMultipleOf(Duration.ofMinutes(1));
			for (int i = 0; i < 5; i++) {
				assertThat(allowed(orders, "203.0.113.7")).isTrue();
			}
			assertThat(allowed(orders, "203.0.113.7")).isFalse();
			assertThat(allowed(orders, "198.51.100.2")).isTrue();
			clock.advance(Duration.ofMinutes(1));
			assertThat(allowed(orders, "203.0.113.7")).isTrue();
		});
	}

	@Test
	void theFreeTierBurstsToTenThenRefillsTwoPerSecond() {
		this.rateLimits.run((context) -> {
			ManualClock clock = context.getBean(ManualClock.class);
			RateLimiter<?> orders = context.getBean("ordersRateLimiter", RateLimiter.class);
			for (int i = 0; i < 10; i++) {
				assertThat(allowed(orders, "demo-free-key")).isTrue();
			}
			assertThat(allowed(orders, "demo-free-key")).isFalse();
			clock.advance(Duration.ofSeconds(1));
			assertThat(allowed(orders, "demo-free-key")).isTrue();
			assertThat(allowed(orders, "demo-free-key")).isTrue();
			assertThat(allowed(orders, "demo-free-key")).isFalse();
		});
	}

	private static boolean allowed(RateLimiter<?> limiter, String key) {
		return limiter.isAllowed("orders", key).block().isAllowed();
	}

}
