package dev.ratelimit.autoconfigure;

import dev.ratelimit.actuate.RateLimitDashboard;
import dev.ratelimit.actuate.RateLimitsEndpoint;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointProperties;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * The opt-in dashboard page, served wherever the actuator is (the application's port or
 * {@code management.server.port}) under its base path, next to the {@code ratelimits}
 * endpoint it reads.
 */
@ManagementContextConfiguration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = Type.REACTIVE)
@ConditionalOnBooleanProperty("ratelimit.actuator.dashboard.enabled")
@ConditionalOnAvailableEndpoint(RateLimitsEndpoint.class)
class RateLimitDashboardConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitDashboard rateLimitDashboard(WebEndpointProperties webEndpointProperties) {
		return new RateLimitDashboard(webEndpointProperties.getBasePath());
	}

	@Bean
	RouterFunction<ServerResponse> rateLimitDashboardRoute(RateLimitDashboard dashboard) {
		return dashboard.route();
	}

}
