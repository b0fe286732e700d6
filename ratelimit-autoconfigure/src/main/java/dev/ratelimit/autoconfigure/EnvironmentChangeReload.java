package dev.ratelimit.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.GatewayRoutesReload;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.policy.PolicyReloader;
import dev.ratelimit.policy.PolicyReloads;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPoliciesReloadedEvent;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.web.RateLimitWebFilter;
import dev.ratelimit.web.WebRouteFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Reloads the policies ({@link PolicyReloader}) on Spring Cloud's
 * {@link EnvironmentChangeEvent} (published by {@code /actuator/refresh}, a config
 * server's push, or the application itself) that changes a {@code ratelimit.*} key.
 * <p>
 * The settings are bound afresh from the environment into a new
 * {@link RateLimitProperties}, never read from the properties bean that Spring Cloud
 * rebinds in place meanwhile, and validated as at start-up, routes included. In force,
 * the gateway, when there is one, rebuilds its routes (Spring Cloud Gateway's
 * {@code RefreshRoutesEvent}), and whatever else was built from the policies rebuilds
 * it on a {@link RateLimitPoliciesReloadedEvent}, so that the next request is judged
 * under them.
 */
final class EnvironmentChangeReload implements ApplicationListener<EnvironmentChangeEvent>, Ordered {

	private static final String PREFIX = "ratelimit";

	private final Environment environment;

	private final @Nullable GatewayRoutesReload gateway;

	private final BucketStores stores;

	private final ObjectProvider<RateLimitWebFilter> webFilter;

	private final ApplicationEventPublisher publisher;

	private final boolean responseCostResolverPresent;

	private final PolicyReloader reloader;

	/**
	 * @param gateway what the gateway adds to a reload, or {@code null} without it
	 * @param stores the available stores
	 * @param webFilter the web filter of {@code ratelimit.web.routes}, if there is one
	 * @param reloads where each reload's outcome is recorded
	 * @param responseCostResolverPresent whether the application declares a
	 * {@code ResponseCostResolver} bean, which {@code cost-from-response: resolver} asks
	 */
	EnvironmentChangeReload(Environment environment, LivePolicies policies, @Nullable GatewayRoutesReload gateway,
			BucketStores stores, ObjectProvider<RateLimitWebFilter> webFilter, ApplicationEventPublisher publisher,
			PolicyReloads reloads, boolean responseCostResolverPresent) {
		this.environment = environment;
		this.gateway = gateway;
		this.stores = stores;
		this.webFilter = webFilter;
		this.publisher = publisher;
		this.responseCostResolverPresent = responseCostResolverPresent;
		this.reloader = new PolicyReloader(policies, reloads, this::follow);
	}

	/**
	 * Before Spring Cloud's {@code ConfigurationPropertiesRebinder}, which fails the
	 * refresh on a value it cannot bind: the change is judged and logged here first.
	 */
	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	public void onApplicationEvent(EnvironmentChangeEvent event) {
		Set<String> changed = new TreeSet<>();
		for (String key : event.getKeys()) {
			if (key.startsWith(PREFIX + ".")) {
				changed.add(key);
			}
		}
		if (!changed.isEmpty()) {
			this.reloader.reload(changed, this::validated);
		}
	}

	private RateLimitPolicies validated(RateLimitPolicies inForce) {
		try {
			return bindAndCheck(inForce);
		}
		catch (BindException ex) {
			ConfigurationProperty property = ex.getProperty();
			ConfigurationProblem problem = new ConfigurationProblem(ex.getName().toString(),
					(property != null) ? property.getValue() : null, rootCause(ex).getMessage());
			throw new InvalidRateLimitConfigurationException("Invalid rate limit configuration:"
					+ System.lineSeparator() + " - " + ex.getMessage() + ": " + rootCause(ex).getMessage(),
					List.of(problem));
		}
	}

	private RateLimitPolicies bindAndCheck(RateLimitPolicies inForce) {
		// Unknown keys and values that do not convert are judged as at start-up.
		RateLimitConfigurationBinding.Result bound = RateLimitConfigurationBinding.bind(this.environment);
		List<ConfigurationProblem> problems = new ArrayList<>(bound.problems());
		// Without the gateway, the web routes report a policy keyed by a KeyResolver.
		Set<String> keyResolvers = (this.gateway != null) ? this.gateway.keyResolverNames() : null;
		RateLimitPolicies next;
		try {
			next = new PoliciesFromProperties(keyResolvers, this.responseCostResolverPresent)
				.create(bound.properties());
		}
		catch (InvalidRateLimitConfigurationException ex) {
			List<ConfigurationProblem> policyProblems = new ArrayList<>(ex.getProblems());
			if (this.gateway != null) {
				policyProblems.addAll(this.gateway.filterProblems(bound.properties().getPolicies().keySet()));
			}
			throw new InvalidRateLimitConfigurationException(bound.with(policyProblems));
		}
		problems.addAll((this.gateway != null) ? this.gateway.problems(inForce, next)
				: this.stores.missingStores(next));
		RateLimitWebFilter webFilter = this.webFilter.getIfAvailable();
		if (webFilter != null) {
			// The web routes are read once, at start-up: they are the routes in force.
			problems.addAll(new WebRouteFactory(next, this.gateway != null, bound.properties().getHeaders())
				.reloadProblems(webFilter.routes()));
		}
		if (!problems.isEmpty()) {
			throw new InvalidRateLimitConfigurationException(problems);
		}
		return next;
	}

	private void follow(RateLimitPolicies inForce) {
		if (this.gateway != null) {
			this.gateway.refreshRoutes(this);
		}
		this.publisher.publishEvent(new RateLimitPoliciesReloadedEvent(this, inForce));
	}

	private static Throwable rootCause(Throwable failure) {
		Throwable cause = failure;
		while (cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

}
