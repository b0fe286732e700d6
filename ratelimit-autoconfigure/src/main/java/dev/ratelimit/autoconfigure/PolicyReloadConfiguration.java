package dev.ratelimit.autoconfigure;

import dev.ratelimit.gateway.RateLimitRouteValidator;
import dev.ratelimit.gateway.SpringCloudGatewayRoutesReload;
import dev.ratelimit.policy.GatewayRoutesReload;
import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.policy.PolicyReloads;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.web.RateLimitWebFilter;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Live reload of the policies on Spring Cloud's refresh, wherever Spring Cloud Context
 * is on the class path (it comes with the gateway starter; a plain WebFlux application
 * adds it), and the policies are built from {@code ratelimit.*}: policies the
 * application defines as a bean of its own are never replaced by the properties. With
 * Spring Cloud Gateway, its routes are checked and rebuilt too.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(EnvironmentChangeEvent.class)
@ConditionalOnMissingBean(RateLimitPolicies.class)
class PolicyReloadConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PolicyReloads rateLimitPolicyReloads() {
		// Real time, whatever clock the buckets run on: an operator reads when it was.
		return new PolicyReloads(MonotonicClock.SYSTEM);
	}

	@Bean
	@ConditionalOnMissingBean
	EnvironmentChangeReload rateLimitPolicyReloader(Environment environment, LivePolicies policies,
			ObjectProvider<GatewayRoutesReload> gateway, BucketStores stores,
			ObjectProvider<RateLimitWebFilter> webFilter, ApplicationEventPublisher publisher, PolicyReloads reloads,
			ListableBeanFactory beanFactory) {
		return new EnvironmentChangeReload(environment, policies, gateway.getIfAvailable(), stores, webFilter,
				publisher, reloads, PolicyConfiguration.hasResponseCostResolver(beanFactory));
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.cloud.gateway.event.RefreshRoutesEvent")
	static class GatewayRoutesReloadConfiguration {

		@Bean
		@ConditionalOnMissingBean
		GatewayRoutesReload rateLimitGatewayRoutesReload(Environment environment, ListableBeanFactory beanFactory,
				ObjectProvider<RateLimitRouteValidator> routeValidator, BucketStores stores,
				ApplicationEventPublisher publisher) {
			return new SpringCloudGatewayRoutesReload(environment, beanFactory, routeValidator.getIfAvailable(),
					stores, publisher);
		}

	}

}
