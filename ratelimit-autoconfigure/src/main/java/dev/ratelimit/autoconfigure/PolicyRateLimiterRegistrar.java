package dev.ratelimit.autoconfigure;

import java.util.Map;

import dev.ratelimit.gateway.PassThroughRateLimiter;
import dev.ratelimit.gateway.PolicyRateLimiter;
import dev.ratelimit.web.RequestJudges;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aot.AotDetector;
import org.springframework.beans.factory.config.RuntimeBeanReference;
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
 * warning. With Spring AOT the beans are those of the policies configured at build time.
 */
final class PolicyRateLimiterRegistrar implements BeanDefinitionRegistryPostProcessor {

	private static final Log logger = LogFactory.getLog(PolicyRateLimiterRegistrar.class);

	private final Environment environment;

	PolicyRateLimiterRegistrar(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
		if (AotDetector.useGeneratedArtifacts()) {
			// Registered at build time: the definitions are in the code Spring AOT generated,
			// and would each be taken here for a bean the application defined.
			return;
		}
		// Only the policy ids are needed here; a value that does not bind is reported by
		// the binding of RateLimitProperties, with the rest of the configuration.
		Binder binder = Binder.get(this.environment);
		BindHandler ignoreErrors = new IgnoreErrorsBindHandler();
		Map<String, RateLimitProperties.Policy> policies = binder
			.bind("ratelimit.policies", Bindable.mapOf(String.class, RateLimitProperties.Policy.class), ignoreErrors)
			.orElse(Map.of());
		boolean enabled = binder.bind("ratelimit.enabled", Bindable.of(Boolean.class), ignoreErrors).orElse(true);
		for (String policyId : policies.keySet()) {
			String beanName = policyId + PolicyRateLimiter.BEAN_NAME_SUFFIX;
			if (registry.containsBeanDefinition(beanName)) {
				logger.warn("Rate limit policy '" + policyId + "' is not offered as a RateLimiter bean: a bean named '"
						+ beanName + "' is already defined, and RequestRateLimiter routes naming it get that bean");
				continue;
			}
			registry.registerBeanDefinition(beanName, enabled ? policyRateLimiter(policyId) : passThroughRateLimiter());
		}
	}

	/**
	 * {@code PolicyRateLimiter.of(requestJudges, policyId)}, as a factory method rather
	 * than an instance supplier so that Spring AOT can generate the definition's code.
	 */
	private static RootBeanDefinition policyRateLimiter(String policyId) {
		RootBeanDefinition definition = nonDefaultCandidate(PolicyRateLimiter.class);
		definition.setFactoryMethodName("of");
		definition.getConstructorArgumentValues()
			.addIndexedArgumentValue(0, new RuntimeBeanReference(RequestJudges.class));
		definition.getConstructorArgumentValues().addIndexedArgumentValue(1, policyId);
		return definition;
	}

	private static RootBeanDefinition passThroughRateLimiter() {
		return nonDefaultCandidate(PassThroughRateLimiter.class);
	}

	private static RootBeanDefinition nonDefaultCandidate(Class<? extends RateLimiter<?>> type) {
		RootBeanDefinition definition = new RootBeanDefinition(type);
		definition.setDefaultCandidate(false);
		return definition;
	}

}
