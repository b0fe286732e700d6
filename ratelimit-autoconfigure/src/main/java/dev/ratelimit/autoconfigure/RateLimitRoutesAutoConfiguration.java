package dev.ratelimit.autoconfigure;

import java.util.List;

import dev.ratelimit.gateway.PassThroughRateLimitGatewayFilterFactory;
import dev.ratelimit.gateway.PolicyRateLimiter;
import dev.ratelimit.gateway.PolicyRequestRateLimiterGatewayFilterFactory;
import dev.ratelimit.gateway.RateLimitFilters;
import dev.ratelimit.gateway.RateLimitGatewayFilterFactory;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPoliciesReloadedEvent;
import dev.ratelimit.policy.ReloadFollowers;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.config.GatewayAutoConfiguration;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The ways routes apply a policy besides the {@code RateLimit} filter in YAML: each
 * policy as a Spring Cloud Gateway {@code RateLimiter} bean ({@code <policy>RateLimiter})
 * for {@code RequestRateLimiter} routes, with that filter when Spring Cloud Gateway has
 * not defined it itself, and {@link RateLimitFilters} for routes built in Java.
 */
@AutoConfiguration(after = { RateLimitAutoConfiguration.class, RateLimitDisabledAutoConfiguration.class,
		GatewayAutoConfiguration.class }, afterName = "org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration")
@ConditionalOnClass(RequestRateLimiterGatewayFilterFactory.class)
public final class RateLimitRoutesAutoConfiguration {

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

	/**
	 * Each policy's {@code RateLimiter} bean judges the next request under reloaded
	 * policies.
	 */
	@Bean
	ApplicationListener<RateLimitPoliciesReloadedEvent> rateLimitPolicyRateLimitersReload(
			ListableBeanFactory beanFactory) {
		return (event) -> beanFactory.getBeansOfType(PolicyRateLimiter.class)
			.forEach((name, limiter) -> ReloadFollowers.rebuild(name, () -> limiter.reload(event.getPolicies())));
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitFilters rateLimitFilters(ObjectProvider<RateLimitGatewayFilterFactory> factory,
			ObjectProvider<PassThroughRateLimitGatewayFilterFactory> passThrough,
			ObjectProvider<RateLimitPolicies> policies) {
		RateLimitGatewayFilterFactory enabled = factory.getIfAvailable();
		return (enabled != null) ? new RateLimitFilters(enabled, policies.getIfAvailable())
				: new RateLimitFilters(passThrough.getObject(), null);
	}

}
