package dev.ratelimit.gateway;

import java.util.List;
import java.util.Set;

import dev.ratelimit.policy.ConfigurationProblem;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;

/**
 * The gateway's routes checked against the policies' ids, valid or not, for the
 * start-up check of the configuration, the policies' bean and a live reload: called
 * only where the route validator, {@link #ROUTE_VALIDATOR_BEAN}, is defined, so only
 * with Spring Cloud Gateway (the constant is compiled into its callers: reading it
 * loads no class).
 */
public final class GatewayRouteChecks {

	public static final String ROUTE_VALIDATOR_BEAN = "rateLimitRouteValidator";

	private GatewayRouteChecks() {
	}

	/**
	 * The problems of the configured routes' filters under the policies
	 * {@code policyIds}, valid or not; none when the routes do not bind, which the
	 * gateway's own binding reports.
	 */
	public static List<ConfigurationProblem> filterProblems(Binder binder, ListableBeanFactory beanFactory,
			Set<String> policyIds) {
		GatewayProperties routes;
		try {
			routes = binder.bindOrCreate(GatewayProperties.PREFIX, GatewayProperties.class);
		}
		catch (BindException ex) {
			return List.of();
		}
		// Definitions will do: the policies' RateLimiter beans are registered early.
		Set<String> rateLimiters = Set.of(beanFactory.getBeanNamesForType(RateLimiter.class, true, false));
		return RateLimitRouteValidator.filterProblems(policyIds, routes, rateLimiters);
	}

}
