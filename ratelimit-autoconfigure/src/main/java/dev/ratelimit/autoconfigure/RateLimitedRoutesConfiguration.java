package dev.ratelimit.autoconfigure;

import java.util.List;
import java.util.Map;

import dev.ratelimit.gateway.GatewayRateLimitedRoutes;
import dev.ratelimit.web.RateLimitedRoutes;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.route.RouteDefinitionLocator;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Reads which routes use each policy from the gateway's route definitions, when there
 * is a gateway, and what keys a {@code RequestRateLimiter} route that names no
 * {@code KeyResolver}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(RouteDefinitionLocator.class)
@ConditionalOnBean(RouteDefinitionLocator.class)
class RateLimitedRoutesConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitedRoutes rateLimitedRoutes(RouteDefinitionLocator routeDefinitionLocator,
			ObjectProvider<GatewayProperties> gatewayProperties, ObjectProvider<RouteLocator> routeLocator,
			ObjectProvider<RequestRateLimiterGatewayFilterFactory> requestRateLimiter,
			ListableBeanFactory beanFactory) {
		List<FilterDefinition> defaultFilters = gatewayProperties
			.getIfAvailable(GatewayProperties::new)
			.getDefaultFilters();
		return new GatewayRateLimitedRoutes(routeDefinitionLocator, defaultFilters, routeLocator.getIfAvailable(),
				defaultKeyResolver(requestRateLimiter.getIfAvailable(), beanFactory));
	}

	/**
	 * The {@code KeyResolver} of a {@code RequestRateLimiter} route that names none, as
	 * a route would name it ({@code #{@principalNameKeyResolver}}), or by its class when
	 * it is no bean.
	 */
	private static @Nullable String defaultKeyResolver(@Nullable RequestRateLimiterGatewayFilterFactory factory,
			ListableBeanFactory beanFactory) {
		KeyResolver resolver = (factory != null) ? factory.getDefaultKeyResolver() : null;
		if (resolver == null) {
			return null;
		}
		for (Map.Entry<String, KeyResolver> bean : beanFactory.getBeansOfType(KeyResolver.class).entrySet()) {
			if (bean.getValue() == resolver) {
				return "#{@" + bean.getKey() + "}";
			}
		}
		return resolver.getClass().getSimpleName();
	}

}
