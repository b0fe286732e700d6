package dev.ratelimit.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.web.server.ServerWebExchange;

/**
 * Auto-configuration of rate limiting for reactive web applications: the validated
 * policies, the in-memory store and the request path they share, then, with Spring
 * Cloud Gateway on the classpath, the {@code RateLimit} gateway filter. The web filter
 * of a plain WebFlux application is {@link RateLimitWebFilterAutoConfiguration}'s.
 * Before any of them, the check of every {@code ratelimit.*} key.
 */
@AutoConfiguration
@ConditionalOnClass(ServerWebExchange.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
// The reload first: it backs off from policies the application defines itself, which
// only its condition, evaluated before PolicyConfiguration registers its own, can tell.
@Import({ PolicyReloadConfiguration.class, PolicyConfiguration.class, CaffeineStoreConfiguration.class,
		BucketStoresConfiguration.class, RequestPathConfiguration.class,
		FilterConfiguration.class })
@ImportRuntimeHints(RateLimitRuntimeHints.class)
public final class RateLimitAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	static RateLimitConfigurationCheck rateLimitConfigurationCheck(Environment environment) {
		return new RateLimitConfigurationCheck(environment);
	}

}
