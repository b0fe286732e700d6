package dev.ratelimit.autoconfigure;

import java.util.List;
import java.util.Set;

import dev.ratelimit.gateway.RateLimitRouteValidator;
import dev.ratelimit.policy.ConfigurationProblem;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.core.env.Environment;

/**
 * The gateway's routes checked against the policies before any bean exists, for
 * {@link RateLimitConfigurationCheck} and the policies' bean: called only where the
 * route validator, {@link #ROUTE_VALIDATOR_BEAN}, is defined, so only with Spring Cloud
 * Gateway (the constant is compiled into its callers: reading it loads no class).
 */
final class GatewayRouteChecks {

	static final String ROUTE_VALIDATOR_BEAN = "rateLimitRouteValidator";

	private GatewayRouteChecks() {
	}

	/**
	 * The problems of the configured routes' filters under the policies
	 * {@code policyIds}, valid or not; none when the routes do not bind, which the
	 * gateway's own binding reports.
	 */
	static List<ConfigurationProblem> filterProblems(Environment environment,
			ConfigurableListableBeanFactory beanFactory, Set<String> policyIds) {
		GatewayProperties routes;
		try {
			routes = Binder.get(environment).bindOrCreate(GatewayProperties.PREFIX, GatewayProperties.class);
		}
		catch (BindException ex) {
			return List.of();
		}
		// Definitions only: the policies' RateLimiter beans are registered by now.
		Set<String> rateLimiters = Set.of(beanFactory.getBeanNamesForType(RateLimiter.class, true, false));
		return RateLimitRouteValidator.filterProblems(policyIds, routes, rateLimiters);
	}

}
