package dev.ratelimit.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.ratelimit.gateway.GatewayRouteChecks;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.web.ResponseCostResolver;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The clock and the policies, validated once at start-up, and the warning about a
 * forward-headers strategy that lets clients choose their address.
 */
@Configuration(proxyBeanMethods = false)
class PolicyConfiguration {

	static final String KEY_RESOLVER = "org.springframework.cloud.gateway.filter.ratelimit.KeyResolver";

	@Bean
	@ConditionalOnMissingBean
	MonotonicClock rateLimitClock() {
		return MonotonicClock.SYSTEM;
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitPolicies rateLimitPolicies(RateLimitProperties properties, ConfigurableListableBeanFactory beanFactory,
			Environment environment) {
		try {
			return policiesFromProperties(beanFactory).create(properties);
		}
		catch (InvalidRateLimitConfigurationException ex) {
			throw new InvalidRateLimitConfigurationException(
					withRouteFilterProblems(ex.getProblems(), properties, beanFactory, environment));
		}
	}

	/**
	 * The policies' problems and, with the gateway, its routes' filters' in one report: the
	 * filters checked against the policies' ids, valid or not.
	 */
	static List<ConfigurationProblem> withRouteFilterProblems(List<ConfigurationProblem> policyProblems,
			RateLimitProperties properties, ConfigurableListableBeanFactory beanFactory, Environment environment) {
		List<ConfigurationProblem> problems = new ArrayList<>(policyProblems);
		if (beanFactory.containsBeanDefinition(GatewayRouteChecks.ROUTE_VALIDATOR_BEAN)) {
			problems.addAll(GatewayRouteChecks.filterProblems(Binder.get(environment), beanFactory,
					properties.getPolicies().keySet()));
		}
		return problems;
	}

	/**
	 * The factory of the policies of {@code beanFactory}'s application, as start-up
	 * builds them.
	 */
	static PoliciesFromProperties policiesFromProperties(ConfigurableListableBeanFactory beanFactory) {
		ClassLoader classLoader = beanFactory.getBeanClassLoader();
		// Without the gateway, the web routes report a policy keyed by a KeyResolver.
		Set<String> keyResolvers = ClassUtils.isPresent(KEY_RESOLVER, classLoader)
				? Set.of(beanFactory.getBeanNamesForType(ClassUtils.resolveClassName(KEY_RESOLVER, classLoader), true, false))
				: null;
		return new PoliciesFromProperties(keyResolvers,
				ClassUtils.isPresent(PoliciesFromProperties.OAUTH2_TOKEN_CLASS, classLoader),
				hasResponseCostResolver(beanFactory));
	}

	/**
	 * Whether {@code beanFactory}'s application declares a {@link ResponseCostResolver},
	 * read from the bean definitions, none of them created.
	 */
	static boolean hasResponseCostResolver(ListableBeanFactory beanFactory) {
		return beanFactory.getBeanNamesForType(ResponseCostResolver.class, true, false).length > 0;
	}

	/**
	 * The policies in force: those validated at start-up until a live reload replaces
	 * them.
	 */
	@Bean
	@ConditionalOnMissingBean
	LivePolicies rateLimitLivePolicies(RateLimitPolicies policies) {
		return new LivePolicies(policies);
	}

	@Bean
	@ConditionalOnMissingBean
	static ForwardHeadersStrategyCheck rateLimitForwardHeadersStrategyCheck(Environment environment) {
		return new ForwardHeadersStrategyCheck(environment);
	}

}
