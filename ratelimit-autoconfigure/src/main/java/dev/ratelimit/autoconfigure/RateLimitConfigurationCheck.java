package dev.ratelimit.autoconfigure;

import java.util.List;

import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;

import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.core.env.Environment;
import org.springframework.core.type.MethodMetadata;

/**
 * Fails start-up on the problems {@link RateLimitConfigurationBinding} finds (a key no
 * property binds, a value that does not convert) before any bean binds the
 * properties, so that Spring Boot's own bind failure never comes first, and in one
 * report with the problems of the policies built from them and of the gateway routes'
 * filters.
 */
final class RateLimitConfigurationCheck implements BeanFactoryPostProcessor {

	private static final String POLICIES_BEAN = "rateLimitPolicies";

	private final Environment environment;

	RateLimitConfigurationCheck(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		RateLimitConfigurationBinding.Result bound;
		try {
			bound = RateLimitConfigurationBinding.bind(this.environment);
		}
		catch (BindException ex) {
			// Left to the binding of the properties bean, which reports it naming the class.
			return;
		}
		if (bound.problems().isEmpty()) {
			return;
		}
		List<ConfigurationProblem> policyProblems = List.of();
		if (policiesBuiltFromProperties(beanFactory)) {
			List<ConfigurationProblem> own = List.of();
			try {
				PolicyConfiguration.policiesFromProperties(beanFactory).create(bound.properties());
			}
			catch (InvalidRateLimitConfigurationException ex) {
				own = ex.getProblems();
			}
			policyProblems = PolicyConfiguration.withRouteFilterProblems(own, bound.properties(), beanFactory,
					this.environment);
		}
		throw new InvalidRateLimitConfigurationException(bound.with(policyProblems));
	}

	/**
	 * Whether the policies are {@link PolicyConfiguration}'s, not a bean of the
	 * application's own, whose start-up skips the policies' checks.
	 */
	private static boolean policiesBuiltFromProperties(ConfigurableListableBeanFactory beanFactory) {
		if (!beanFactory.containsBeanDefinition(POLICIES_BEAN)) {
			return false;
		}
		BeanDefinition definition = beanFactory.getBeanDefinition(POLICIES_BEAN);
		MethodMetadata factoryMethod = (definition instanceof AnnotatedBeanDefinition annotated)
				? annotated.getFactoryMethodMetadata() : null;
		return factoryMethod != null && factoryMethod.getDeclaringClassName().equals(PolicyConfiguration.class.getName());
	}

}
