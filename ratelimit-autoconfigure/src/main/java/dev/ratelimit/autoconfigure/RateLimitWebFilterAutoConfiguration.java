package dev.ratelimit.autoconfigure;

import java.util.List;

import dev.ratelimit.gateway.GatewayKeyResolverBeans;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPoliciesReloadedEvent;
import dev.ratelimit.policy.ReloadFollowers;
import dev.ratelimit.web.RateLimitWebFilter;
import dev.ratelimit.web.RequestJudges;
import dev.ratelimit.web.WebRouteFactory;

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
@ConditionalOnBean(RequestJudges.class)
public final class RateLimitWebFilterAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitWebFilter rateLimitWebFilter(RequestJudges judges, RateLimitPolicies policies,
			RateLimitProperties properties, ConfigurableListableBeanFactory beanFactory) {
		boolean gatewayPresent = ClassUtils.isPresent(PolicyConfiguration.KEY_RESOLVER,
				beanFactory.getBeanClassLoader());
		// Without the gateway no route's policy may be keyed by a KeyResolver bean.
		return new RateLimitWebFilter(judges,
				new WebRouteFactory(policies, gatewayPresent, properties.getHeaders()).create(configured(properties)),
				gatewayPresent ? new GatewayKeyResolverBeans(beanFactory) : null, properties.getWeb().getOrder());
	}

	private static List<WebRouteFactory.Configured> configured(RateLimitProperties properties) {
		return properties.getWeb()
			.getRoutes()
			.stream()
			.map((route) -> new WebRouteFactory.Configured(route.getId(), route.getPaths(), route.getMethods(),
					route.getPolicy(), route.getPolicies()))
			.toList();
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
