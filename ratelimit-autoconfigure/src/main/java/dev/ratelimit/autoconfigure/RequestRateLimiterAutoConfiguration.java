package dev.ratelimit.autoconfigure;

import java.util.List;

import dev.ratelimit.gateway.PolicyRequestRateLimiterGatewayFilterFactory;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.config.GatewayAutoConfiguration;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Each policy as a Spring Cloud Gateway {@code RateLimiter} bean
 * ({@code <policy>RateLimiter}), and the {@code RequestRateLimiter} filter that names
 * them, when Spring Cloud Gateway has not defined that filter itself.
 */
@AutoConfiguration(after = { RateLimitAutoConfiguration.class, RateLimitDisabledAutoConfiguration.class,
		GatewayAutoConfiguration.class }, afterName = "org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration")
@ConditionalOnClass(RequestRateLimiterGatewayFilterFactory.class)
public final class RequestRateLimiterAutoConfiguration {

	@Bean
	static PolicyRateLimiterRegistrar policyRateLimiterRegistrar(Environment environment) {
		return new PolicyRateLimiterRegistrar(environment);
	}

	@Bean
	@ConditionalOnMissingBean(RequestRateLimiterGatewayFilterFactory.class)
	@ConditionalOnBooleanProperty(name = "spring.cloud.gateway.server.webflux.filter.request-rate-limiter.enabled",
			matchIfMissing = true)
	PolicyRequestRateLimiterGatewayFilterFactory policyRequestRateLimiterGatewayFilterFactory(
			ListableBeanFactory beanFactory) {
		return new PolicyRequestRateLimiterGatewayFilterFactory(
				List.of(beanFactory.getBeanNamesForType(RateLimiter.class, true, false)));
	}

}
