package dev.ratelimit.autoconfigure;

import java.util.Set;

import dev.ratelimit.algorithm.MonotonicClock;
import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.policy.RateLimitPolicies;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The clock and the policies, validated once at start-up, and the warning about a
 * forward-headers strategy that lets clients choose their address.
 */
@Configuration(proxyBeanMethods = false)
class PolicyConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MonotonicClock rateLimitClock() {
		return MonotonicClock.SYSTEM;
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitPolicies rateLimitPolicies(RateLimitProperties properties, ListableBeanFactory beanFactory) {
		Set<String> keyResolvers = Set.of(beanFactory.getBeanNamesForType(KeyResolver.class, true, false));
		return new RateLimitPolicyFactory(keyResolvers).create(properties);
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
