package dev.ratelimit.autoconfigure;

import java.util.Set;

import dev.ratelimit.gateway.RateLimitGatewayFilterFactory;
import dev.ratelimit.gateway.RateLimitRouteValidator;
import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.web.RequestJudges;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.factory.GatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code RateLimit} gateway filter, the start-up check of the routes that use it
 * and of the Reactor Netty they run on, when Spring Cloud Gateway is on the classpath.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(GatewayFilterFactory.class)
class FilterConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitGatewayFilterFactory rateLimitGatewayFilterFactory(RequestJudges judges,
			BeanFactory beanFactory) {
		return new RateLimitGatewayFilterFactory(judges, beanFactory);
	}

	@Bean
	@ConditionalOnMissingBean
	static ReactorNettyVersionCheck reactorNettyVersionCheck() {
		return new ReactorNettyVersionCheck();
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitRouteValidator rateLimitRouteValidator(LivePolicies policies, BucketStores stores,
			ObjectProvider<GatewayProperties> gatewayProperties, ListableBeanFactory beanFactory,
			RateLimitProperties properties) {
		return new RateLimitRouteValidator(policies.get(), stores, gatewayProperties.getIfAvailable(),
				Set.of(beanFactory.getBeanNamesForType(RateLimiter.class, true, false)), properties.getHeaders());
	}

}
