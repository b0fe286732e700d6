package dev.ratelimit.autoconfigure;

import java.util.List;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ratelimit.algorithm.MonotonicClock;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.store.CaffeineBucketStore;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The in-memory store, when Caffeine is on the classpath.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(Caffeine.class)
class CaffeineStoreConfiguration {

	@Bean
	@ConditionalOnMissingBean
	CaffeineBucketStore caffeineBucketStore(MonotonicClock clock, RateLimitProperties properties) {
		long maximumKeys = properties.getCaffeine().getMaximumKeys();
		if (maximumKeys <= 0) {
			throw new InvalidRateLimitConfigurationException(List.of(new ConfigurationProblem(
					"ratelimit.caffeine.maximum-keys", maximumKeys, "must be a positive number")));
		}
		return new CaffeineBucketStore(clock, maximumKeys);
	}

}
