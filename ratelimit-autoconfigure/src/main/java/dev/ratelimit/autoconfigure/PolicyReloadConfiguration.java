package dev.ratelimit.autoconfigure;

import dev.ratelimit.gateway.RateLimitRouteValidator;
import dev.ratelimit.gateway.RateLimitWebFilter;
import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.policy.RateLimitPolicies;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.cloud.gateway.event.RefreshRoutesEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Live reload of the policies on Spring Cloud's refresh, in a gateway (Spring Cloud
 * Context is a dependency of the gateway starter; the gateway rebuilds its routes) and the policies are built from
 * {@code ratelimit.*}: policies the application defines as a bean of its own are never
 * replaced by the properties.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ EnvironmentChangeEvent.class, RefreshRoutesEvent.class })
@ConditionalOnMissingBean(RateLimitPolicies.class)
class PolicyReloadConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PolicyReloader rateLimitPolicyReloader(Environment environment, ListableBeanFactory beanFactory,
			LivePolicies policies, ObjectProvider<RateLimitRouteValidator> routeValidator,
			ObjectProvider<RateLimitWebFilter> webFilter, ApplicationEventPublisher publisher) {
		return new PolicyReloader(environment, beanFactory, policies, routeValidator.getIfAvailable(), webFilter,
				publisher);
	}

}
