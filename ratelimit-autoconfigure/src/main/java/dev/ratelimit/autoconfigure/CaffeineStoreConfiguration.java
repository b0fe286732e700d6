package dev.ratelimit.autoconfigure;

import com.github.benmanes.caffeine.cache.Caffeine;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Configuration;

/**
 * The in-memory store, when Caffeine is on the classpath.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(Caffeine.class)
class CaffeineStoreConfiguration {

}
