package dev.ratelimit.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cloud.gateway.filter.factory.GatewayFilterFactory;
import org.springframework.context.annotation.Import;

/**
 * Auto-configuration of rate limiting for Spring Cloud Gateway: the validated
 * policies, the in-memory store and the {@code RateLimit} filter.
 */
@AutoConfiguration
@ConditionalOnClass(GatewayFilterFactory.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
// The reload first: it backs off from policies the application defines itself, which
// only its condition, evaluated before PolicyConfiguration registers its own, can tell.
@Import({ PolicyReloadConfiguration.class, PolicyConfiguration.class, CaffeineStoreConfiguration.class,
		FilterConfiguration.class })
public final class RateLimitAutoConfiguration {

}
