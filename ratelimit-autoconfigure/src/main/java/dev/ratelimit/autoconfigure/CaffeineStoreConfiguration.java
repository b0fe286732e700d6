package dev.ratelimit.autoconfigure;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ratelimit.policy.ConfigurationChecks;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.support.MonotonicClock;

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
		return new CaffeineBucketStore(clock, ConfigurationChecks.requirePositive("ratelimit.caffeine.maximum-keys",
				properties.getCaffeine().getMaximumKeys()));
	}

}
