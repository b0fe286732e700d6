package dev.ratelimit.autoconfigure;

import dev.ratelimit.policy.ConfigurationChecks;
import dev.ratelimit.policy.RateLimitPoliciesReloadedEvent;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.store.hybrid.HybridBucketStore;
import dev.ratelimit.support.MonotonicClock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * The eventually consistent {@code hybrid} store, when a policy uses it.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRateLimitStore(StoreType.HYBRID)
class HybridStoreConfiguration {

	@Bean
	@ConditionalOnMissingBean
	HybridBucketStore hybridBucketStore(ObjectProvider<ReactiveRedisConnectionFactory> connectionFactory,
			RateLimitRedisProperties redisProperties, RateLimitHybridProperties hybridProperties,
			ObjectProvider<CaffeineBucketStore> localStore) {
		ConfigurationChecks.requirePositive("ratelimit.hybrid.sync-interval", hybridProperties.getSyncInterval());
		ReactiveStringRedisTemplate template = RemoteStores.template(StoreType.HYBRID, connectionFactory);
		return new HybridBucketStore(RemoteStores.script(template, redisProperties), redisProperties.getTimeout(),
				hybridProperties.getSyncInterval(),
				RemoteStores.guard(HybridBucketStore.NAME, redisProperties, localStore), MonotonicClock.SYSTEM);
	}

	/**
	 * The store follows a live reload ({@link HybridBucketStore#policiesReloaded}).
	 */
	@Bean
	ApplicationListener<RateLimitPoliciesReloadedEvent> rateLimitHybridBucketStoreReload(HybridBucketStore store) {
		return (event) -> store.policiesReloaded(event.getPolicies().byId().values());
	}

}
