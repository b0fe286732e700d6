package dev.ratelimit.autoconfigure;

import dev.ratelimit.gateway.PassThroughRateLimitGatewayFilterFactory;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.filter.factory.GatewayFilterFactory;
import org.springframework.context.annotation.Bean;

/**
 * With {@code ratelimit.enabled=false}, a {@code RateLimit} filter that lets every
 * request through, so that routes naming a policy still load.
 */
@AutoConfiguration
@ConditionalOnClass(GatewayFilterFactory.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", havingValue = false)
public final class RateLimitDisabledAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PassThroughRateLimitGatewayFilterFactory passThroughRateLimitGatewayFilterFactory() {
		return new PassThroughRateLimitGatewayFilterFactory();
	}

}
