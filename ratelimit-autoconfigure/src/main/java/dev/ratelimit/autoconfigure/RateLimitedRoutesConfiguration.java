package dev.ratelimit.autoconfigure;

import java.util.List;

import dev.ratelimit.actuator.RateLimitedRoutes;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.route.RouteDefinitionLocator;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Reads which routes use each policy from the gateway's route definitions, when there
 * is a gateway.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(RouteDefinitionLocator.class)
@ConditionalOnBean(RouteDefinitionLocator.class)
class RateLimitedRoutesConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitedRoutes rateLimitedRoutes(RouteDefinitionLocator routeDefinitionLocator,
			ObjectProvider<GatewayProperties> gatewayProperties, ObjectProvider<RouteLocator> routeLocator) {
		List<FilterDefinition> defaultFilters = gatewayProperties
			.getIfAvailable(GatewayProperties::new)
			.getDefaultFilters();
		return new RateLimitedRoutes(routeDefinitionLocator, defaultFilters, routeLocator.getIfAvailable());
	}

}
