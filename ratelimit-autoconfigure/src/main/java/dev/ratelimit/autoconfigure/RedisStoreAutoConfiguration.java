package dev.ratelimit.autoconfigure;

import dev.ratelimit.store.redis.RedisBucketStore;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;

/**
 * Auto-configuration of the Redis-backed stores: {@code redis} (exact) and
 * {@code hybrid} (leased, eventually consistent), each created only when
 * {@code ratelimit.store} or a policy's {@code store} names it.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration")
@ConditionalOnClass({ ReactiveRedisConnectionFactory.class, RedisBucketStore.class })
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@EnableConfigurationProperties({ RateLimitRedisProperties.class, RateLimitHybridProperties.class })
@Import({ RedisStoreConfiguration.class, HybridStoreConfiguration.class, RedisReconnectConfiguration.class })
public final class RedisStoreAutoConfiguration {

}
