package dev.ratelimit.autoconfigure;

import dev.ratelimit.gateway.RateLimitEnforcers;
import dev.ratelimit.gateway.RateLimitWebFilter;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPoliciesReloadedEvent;
import dev.ratelimit.policy.ReloadFollowers;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.util.ClassUtils;

/**
 * Auto-configuration of the web filter that applies the policies to a plain Spring
 * WebFlux application's routes ({@code ratelimit.web.routes}), with or without Spring
 * Cloud Gateway on the classpath.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
		afterName = "dev.ratelimit.autoconfigure.RedisStoreAutoConfiguration")
@ConditionalOnWebApplication(type = Type.REACTIVE)
@Conditional(OnWebRoutesCondition.class)
@ConditionalOnBean(RateLimitEnforcers.class)
public final class RateLimitWebFilterAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitWebFilter rateLimitWebFilter(RateLimitEnforcers enforcers, RateLimitPolicies policies,
			RateLimitProperties properties, ConfigurableListableBeanFactory beanFactory) {
		boolean gatewayPresent = ClassUtils.isPresent(PolicyConfiguration.KEY_RESOLVER,
				beanFactory.getBeanClassLoader());
		return RateLimitWebFilter.of(enforcers,
				new WebRouteFactory(policies, gatewayPresent).create(properties.getWeb().getRoutes()), beanFactory,
				gatewayPresent, properties.getWeb().getOrder());
	}

	/**
	 * The web filter judges the next request under reloaded policies.
	 */
	@Bean
	@ConditionalOnBean(RateLimitWebFilter.class)
	ApplicationListener<RateLimitPoliciesReloadedEvent> rateLimitWebFilterReload(RateLimitWebFilter webFilter) {
		return (event) -> ReloadFollowers.rebuild("rateLimitWebFilter",
				() -> webFilter.reload(event.getPolicies()));
	}

}
