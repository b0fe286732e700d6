package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.policy.StoreType;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * How soon the application's Lettuce client reconnects to a restarted Redis, when a
 * policy uses a Redis-backed store: Lettuce's back-off doubles up to 30s, so that a
 * Redis down for ten seconds is found again up to ten seconds after it is back, while
 * the failure mode decides every request. Spring Boot applies the customizer to the
 * client resources it creates, which every Redis connection of the application shares;
 * an application defining its own {@link ClientResources} sets its delay there.
 * <p>
 * The other {@code ClientOptions} stay Lettuce's and Spring Boot's: commands sent while
 * disconnected are queued until the connection is back, as the application's other
 * Redis users expect, and a decision gives up on its own after
 * {@code ratelimit.redis.timeout}; the circuit breaker then stops sending them, so the
 * queue stays short.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ ClientResources.class, ClientResourcesBuilderCustomizer.class })
@ConditionalOnRateLimitStore({ StoreType.REDIS, StoreType.HYBRID })
class RedisReconnectConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "rateLimitReconnectDelayCustomizer")
	ClientResourcesBuilderCustomizer rateLimitReconnectDelayCustomizer(RateLimitRedisProperties properties) {
		// Checked here as well as by the stores: the client resources are built first.
		RemoteStores.validate(properties);
		Delay delay = reconnectDelay(properties.getMaxReconnectDelay());
		return (builder) -> builder.reconnectDelay(delay);
	}

	/**
	 * Lettuce's back-off, doubling from 1ms, up to {@code max}.
	 */
	static Delay reconnectDelay(Duration max) {
		return Delay.exponential(Duration.ZERO, max, 2, TimeUnit.MILLISECONDS);
	}

}
