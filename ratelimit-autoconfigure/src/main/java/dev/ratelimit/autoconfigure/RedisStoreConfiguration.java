package dev.ratelimit.autoconfigure;

import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.policy.RateLimitPoliciesReloadedEvent;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.store.redis.RedisBucketStore;
import dev.ratelimit.support.MonotonicClock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * The exact {@code redis} store, when a policy uses it.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRateLimitStore(StoreType.REDIS)
class RedisStoreConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisBucketStore redisBucketStore(ObjectProvider<ReactiveRedisConnectionFactory> connectionFactory,
			RateLimitRedisProperties properties, ObjectProvider<CaffeineBucketStore> localStore,
			ObjectProvider<LivePolicies> policies) {
		ReactiveStringRedisTemplate template = RemoteStores.template(StoreType.REDIS, connectionFactory);
		return new RedisBucketStore(RemoteStores.script(template, properties), properties.getTimeout(),
				RemoteStores.guard(RedisBucketStore.NAME, properties, localStore), MonotonicClock.SYSTEM,
				properties.getSharedCalls().getMaxBatch(), properties.isLocalRefusals(),
				() -> policies.stream().flatMap((live) -> live.get().byId().values().stream()).toList());
	}

	/**
	 * The store follows a live reload ({@link RedisBucketStore#policiesReloaded}).
	 */
	@Bean
	ApplicationListener<RateLimitPoliciesReloadedEvent> rateLimitRedisBucketStoreReload(RedisBucketStore store) {
		return (event) -> store.policiesReloaded(event.getPolicies().byId().values());
	}

}
