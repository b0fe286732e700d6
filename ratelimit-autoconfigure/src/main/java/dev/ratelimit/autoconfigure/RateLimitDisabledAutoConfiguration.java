package dev.ratelimit.autoconfigure;

import dev.ratelimit.gateway.PassThroughRateLimitGatewayFilterFactory;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.filter.factory.GatewayFilterFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;

/**
 * With {@code ratelimit.enabled=false}, a {@code RateLimit} filter that lets every
 * request through, so that routes naming a policy still load.
 */
@AutoConfiguration
@ConditionalOnClass(GatewayFilterFactory.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", havingValue = false)
@ImportRuntimeHints(RateLimitRuntimeHints.class)
public final class RateLimitDisabledAutoConfiguration {

	/**
	 * Every {@code ratelimit.*} key is checked as when enabled: a misspelt key is as
	 * wrong when rate limiting is off.
	 */
	@Bean
	@ConditionalOnMissingBean
	static RateLimitConfigurationCheck rateLimitConfigurationCheck(Environment environment) {
		return new RateLimitConfigurationCheck(environment);
	}

	@Bean
	@ConditionalOnMissingBean
	PassThroughRateLimitGatewayFilterFactory passThroughRateLimitGatewayFilterFactory() {
		return new PassThroughRateLimitGatewayFilterFactory();
	}

}
