package dev.ratelimit.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.GatewayRoutesReload;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.store.BucketStores;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.event.RefreshRoutesEvent;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.env.Environment;

/**
 * A live reload in a Spring Cloud Gateway: routes of the gateway's properties, bound
 * from the environment as it is now, are checked by {@link RateLimitRouteValidator},
 * then rebuilt on a {@link RefreshRoutesEvent}.
 */
public final class SpringCloudGatewayRoutesReload implements GatewayRoutesReload {

	private final Environment environment;

	private final ListableBeanFactory beanFactory;

	private final @Nullable RateLimitRouteValidator routeValidator;

	private final BucketStores stores;

	private final ApplicationEventPublisher publisher;

	/**
	 * @param routeValidator what checks routes against policies, or {@code null} when
	 * there is none
	 * @param stores the available stores, checked when there is no route validator
	 */
	public SpringCloudGatewayRoutesReload(Environment environment, ListableBeanFactory beanFactory,
			@Nullable RateLimitRouteValidator routeValidator, BucketStores stores,
			ApplicationEventPublisher publisher) {
		this.environment = environment;
		this.beanFactory = beanFactory;
		this.routeValidator = routeValidator;
		this.stores = stores;
		this.publisher = publisher;
	}

	@Override
	public Set<String> keyResolverNames() {
		return Set.of(this.beanFactory.getBeanNamesForType(KeyResolver.class, true, false));
	}

	@Override
	public List<ConfigurationProblem> problems(RateLimitPolicies inForce, RateLimitPolicies next) {
		if (this.routeValidator == null) {
			return this.stores.missingStores(next);
		}
		// The routes as configured now, which the same refresh may have changed.
		GatewayProperties routes = Binder.get(this.environment)
			.bindOrCreate(GatewayProperties.PREFIX, GatewayProperties.class);
		List<ConfigurationProblem> problems = new ArrayList<>(this.routeValidator.problems(next, routes));
		problems.addAll(this.routeValidator.rateLimiterProblems(inForce, next, routes));
		return problems;
	}

	@Override
	public List<ConfigurationProblem> filterProblems(Set<String> policyIds) {
		if (this.routeValidator == null) {
			return List.of();
		}
		return GatewayRouteChecks.filterProblems(Binder.get(this.environment), this.beanFactory, policyIds);
	}

	@Override
	public void refreshRoutes(Object source) {
		this.publisher.publishEvent(new RefreshRoutesEvent(source));
	}

}
