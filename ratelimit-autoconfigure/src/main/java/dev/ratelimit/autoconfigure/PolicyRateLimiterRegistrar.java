package dev.ratelimit.autoconfigure;

import java.util.Map;
import java.util.function.Supplier;

import dev.ratelimit.gateway.PassThroughRateLimiter;
import dev.ratelimit.gateway.PolicyRateLimiter;
import dev.ratelimit.web.RequestJudges;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.IgnoreErrorsBindHandler;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.core.env.Environment;

/**
 * Registers one Spring Cloud Gateway {@code RateLimiter} bean per policy of
 * {@code ratelimit.policies}, named {@code <policy>RateLimiter}, for
 * {@code RequestRateLimiter} routes to name. The beans are not default candidates for
 * injection by type, so that Spring Cloud Gateway's own single {@code RateLimiter}
 * (its {@code RedisRateLimiter}) still injects where it is expected; inject ours by
 * name or qualifier. A bean already defined under such a name is left alone, with a
 * warning.
 */
final class PolicyRateLimiterRegistrar implements BeanDefinitionRegistryPostProcessor {

	private static final Log logger = LogFactory.getLog(PolicyRateLimiterRegistrar.class);

	private final Environment environment;

	PolicyRateLimiterRegistrar(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
		// Only the policy ids are needed here; a value that does not bind is reported by
		// the binding of RateLimitProperties, with the rest of the configuration.
		Binder binder = Binder.get(this.environment);
		BindHandler ignoreErrors = new IgnoreErrorsBindHandler();
		Map<String, RateLimitProperties.Policy> policies = binder
			.bind("ratelimit.policies", Bindable.mapOf(String.class, RateLimitProperties.Policy.class), ignoreErrors)
			.orElse(Map.of());
		boolean enabled = binder.bind("ratelimit.enabled", Bindable.of(Boolean.class), ignoreErrors).orElse(true);
		BeanFactory beanFactory = (BeanFactory) registry;
		for (String policyId : policies.keySet()) {
			String beanName = policyId + PolicyRateLimiter.BEAN_NAME_SUFFIX;
			if (registry.containsBeanDefinition(beanName)) {
				logger.warn("Rate limit policy '" + policyId + "' is not offered as a RateLimiter bean: a bean named '"
						+ beanName + "' is already defined, and RequestRateLimiter routes naming it get that bean");
				continue;
			}
			RootBeanDefinition definition = enabled ? definition(PolicyRateLimiter.class,
					() -> PolicyRateLimiter.of(beanFactory.getBean(RequestJudges.class), policyId))
					: definition(PassThroughRateLimiter.class, PassThroughRateLimiter::new);
			registry.registerBeanDefinition(beanName, definition);
		}
	}

	private static <T extends RateLimiter<?>> RootBeanDefinition definition(Class<T> type, Supplier<T> supplier) {
		RootBeanDefinition definition = new RootBeanDefinition(type, supplier);
		definition.setDefaultCandidate(false);
		return definition;
	}

}
