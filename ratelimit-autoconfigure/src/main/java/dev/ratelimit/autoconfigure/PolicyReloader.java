package dev.ratelimit.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.policy.PolicyReloads;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.web.RateLimitWebFilter;
import dev.ratelimit.web.WebRouteFactory;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Puts changed rate limit settings in force without a restart, on Spring Cloud's
 * {@link EnvironmentChangeEvent} (published by {@code /actuator/refresh}, a config
 * server's push, or the application itself).
 * <p>
 * The settings are bound afresh from the environment into a new
 * {@link RateLimitProperties}, never read from the properties bean that Spring Cloud
 * rebinds in place meanwhile, and validated as at start-up, routes included. Valid,
 * they replace the policies in force at once, the gateway, when there is one, rebuilds
 * its routes (Spring Cloud Gateway's {@code RefreshRoutesEvent}), and whatever else was
 * built from the policies rebuilds it on a {@link RateLimitPoliciesReloadedEvent}, so
 * that the next request is judged under them. Invalid, they are rejected with an error log naming every problem
 * and the policies in force stay. Either way the outcome is recorded in {@link PolicyReloads}, for the
 * actuator and metrics.
 */
final class PolicyReloader implements ApplicationListener<EnvironmentChangeEvent>, Ordered {

	private static final Log logger = LogFactory.getLog(PolicyReloader.class);

	private static final String PREFIX = "ratelimit";

	/**
	 * The settings the policies are built from; any other {@code ratelimit.*} setting is
	 * read once, by a bean built at start-up.
	 */
	private static final List<String> RELOADED = List.of("ratelimit.policies", "ratelimit.tiers",
			"ratelimit.trusted-proxies", "ratelimit.forwarded-header", "ratelimit.store");

	private final Environment environment;

	private final LivePolicies policies;

	private final @Nullable GatewayRoutesReload gateway;

	private final BucketStores stores;

	private final ObjectProvider<RateLimitWebFilter> webFilter;

	private final ApplicationEventPublisher publisher;

	private final PolicyReloads reloads;

	/**
	 * @param gateway what the gateway adds to a reload, or {@code null} without it
	 * @param stores the available stores
	 * @param webFilter the web filter of {@code ratelimit.web.routes}, if there is one
	 * @param reloads where each reload's outcome is recorded
	 */
	PolicyReloader(Environment environment, LivePolicies policies, @Nullable GatewayRoutesReload gateway,
			BucketStores stores, ObjectProvider<RateLimitWebFilter> webFilter, ApplicationEventPublisher publisher,
			PolicyReloads reloads) {
		this.environment = environment;
		this.policies = policies;
		this.gateway = gateway;
		this.stores = stores;
		this.webFilter = webFilter;
		this.publisher = publisher;
		this.reloads = reloads;
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
			reload(changed);
		}
	}

	/**
	 * Build, validate and put in force the policies the environment describes now; one
	 * reload at a time, so that the last change is the one in force.
	 */
	synchronized void reload(Set<String> changedKeys) {
		RateLimitPolicies next;
		try {
			next = validated(Binder.get(this.environment));
		}
		catch (InvalidRateLimitConfigurationException ex) {
			logger.error(rejected(changedKeys) + ex.getMessage());
			this.reloads.rejected(changedKeys, ex.getProblems());
			return;
		}
		catch (BindException ex) {
			logger.error(rejected(changedKeys) + "Invalid rate limit configuration:" + System.lineSeparator()
					+ " - " + ex.getMessage() + ": " + rootCause(ex).getMessage());
			this.reloads.rejected(changedKeys, List.of(problem(ex)));
			return;
		}
		warnAboutRestartOnly(changedKeys);
		RateLimitPolicies inForce = this.policies.replace(next);
		this.reloads.accepted(changedKeys);
		logger.info("Rate limit settings reloaded (" + changedKeys + "); policies in force: "
				+ new TreeSet<>(inForce.byId().keySet()));
		if (this.gateway != null) {
			this.gateway.refreshRoutes(this);
		}
		this.publisher.publishEvent(new RateLimitPoliciesReloadedEvent(this, inForce));
	}

	private RateLimitPolicies validated(Binder binder) {
		// Unknown keys and values that do not convert are judged as at start-up.
		RateLimitConfigurationBinding.Result bound = RateLimitConfigurationBinding.bind(this.environment);
		List<ConfigurationProblem> problems = new ArrayList<>(bound.problems());
		// Without the gateway, the web routes report a policy keyed by a KeyResolver.
		Set<String> keyResolvers = (this.gateway != null) ? this.gateway.keyResolverNames() : null;
		RateLimitPolicies next;
		try {
			next = new RateLimitPolicyFactory(keyResolvers).create(bound.properties());
		}
		catch (InvalidRateLimitConfigurationException ex) {
			List<ConfigurationProblem> policyProblems = new ArrayList<>(ex.getProblems());
			if (this.gateway != null) {
				policyProblems.addAll(this.gateway.filterProblems(bound.properties().getPolicies().keySet(), binder));
			}
			throw new InvalidRateLimitConfigurationException(bound.with(policyProblems));
		}
		problems.addAll((this.gateway != null) ? this.gateway.problems(this.policies.get(), next, binder)
				: this.stores.missingStores(next));
		RateLimitWebFilter webFilter = this.webFilter.getIfAvailable();
		if (webFilter != null) {
			// The web routes are read once, at start-up: they are the routes in force.
			problems.addAll(new WebRouteFactory(next, this.gateway != null).reloadProblems(webFilter.routes()));
		}
		if (!problems.isEmpty()) {
			throw new InvalidRateLimitConfigurationException(problems);
		}
		return next;
	}

	private void warnAboutRestartOnly(Set<String> changedKeys) {
		List<String> restartOnly = new ArrayList<>();
		for (String key : changedKeys) {
			if (RELOADED.stream().noneMatch((reloaded) -> key.equals(reloaded) || key.startsWith(reloaded + ".")
					|| key.startsWith(reloaded + "["))) {
				restartOnly.add(key);
			}
		}
		if (!restartOnly.isEmpty()) {
			logger.warn("Rate limit settings " + restartOnly + " changed but are read once, at start-up: they take"
					+ " effect at the next restart. Reloaded without a restart: " + RELOADED);
		}
	}

	private static String rejected(Set<String> changedKeys) {
		return "Rate limit settings change rejected (" + changedKeys
				+ "); the policies in force stay unchanged. " + System.lineSeparator();
	}

	private static ConfigurationProblem problem(BindException failure) {
		ConfigurationProperty property = failure.getProperty();
		return new ConfigurationProblem(failure.getName().toString(), (property != null) ? property.getValue() : null,
				rootCause(failure).getMessage());
	}

	private static Throwable rootCause(Throwable failure) {
		Throwable cause = failure;
		while (cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

}
