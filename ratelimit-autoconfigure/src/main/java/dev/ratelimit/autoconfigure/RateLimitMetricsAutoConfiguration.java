package dev.ratelimit.autoconfigure;

import dev.ratelimit.metrics.RateLimitBlockMetrics;
import dev.ratelimit.metrics.RateLimitBucketMetrics;
import dev.ratelimit.metrics.RateLimitDecisionMeterObservationHandler;
import dev.ratelimit.metrics.RateLimitHeldRequestsMetrics;
import dev.ratelimit.metrics.RateLimitRedisCallMetrics;
import dev.ratelimit.metrics.RateLimitRemoteStoreMetrics;
import dev.ratelimit.metrics.RateLimitReloadMetrics;
import dev.ratelimit.metrics.RateLimitRequestMetrics;
import dev.ratelimit.metrics.RateLimitSettlementMetrics;
import dev.ratelimit.policy.PolicyReloads;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPoliciesReloadedEvent;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.store.redis.RedisBucketStore;
import dev.ratelimit.store.redis.RemoteBucketStore;
import dev.ratelimit.web.HeldRequests;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of rate limit metrics:
 * {@code ratelimit.requests}, {@code ratelimit.decision}, {@code ratelimit.shaping.delay},
 * {@code ratelimit.shaping.held}, {@code ratelimit.shaping.held.max},
 * {@code ratelimit.settled.units}, {@code ratelimit.response.cost.unreadable},
 * {@code ratelimit.in-flight}, {@code ratelimit.blocks}, {@code ratelimit.buckets},
 * {@code ratelimit.reloads}, the timer of observed decisions
 * ({@code ratelimit.policy.decisions}, {@link RateLimitDecisionMeterObservationHandler}),
 * with the {@code redis} store, {@code ratelimit.redis.calls} and
 * {@code ratelimit.redis.decisions}, and with the {@code redis} or {@code hybrid} store,
 * {@code ratelimit.store.circuit-breaker} and {@code ratelimit.store.errors}, in whatever
 * registry Micrometer is set up with.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class, afterName = {
		"dev.ratelimit.autoconfigure.RedisStoreAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@Import(BucketStoresConfiguration.class)
public final class RateLimitMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitRequestMetrics rateLimitRequestMetrics(MeterRegistry registry) {
		return new RateLimitRequestMetrics(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitSettlementMetrics rateLimitSettlementMetrics(MeterRegistry registry) {
		return new RateLimitSettlementMetrics(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitBlockMetrics rateLimitBlockMetrics(MeterRegistry registry) {
		return new RateLimitBlockMetrics(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RateLimitPolicies.class)
	RateLimitBucketMetrics rateLimitBucketMetrics(RateLimitPolicies policies, BucketStores stores) {
		return new RateLimitBucketMetrics(policies, stores);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(PolicyReloads.class)
	RateLimitReloadMetrics rateLimitReloadMetrics(PolicyReloads reloads) {
		return new RateLimitReloadMetrics(reloads);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(HeldRequests.class)
	RateLimitHeldRequestsMetrics rateLimitHeldRequestsMetrics(HeldRequests held) {
		return new RateLimitHeldRequestsMetrics(held);
	}

	/**
	 * Times the observed decisions, ahead of Micrometer's default meter handler, which
	 * times every other observation: Spring Boot's group of meter handlers takes the
	 * first that supports an observation, in this order.
	 */
	@Bean
	@ConditionalOnMissingBean
	@Order(Ordered.HIGHEST_PRECEDENCE)
	RateLimitDecisionMeterObservationHandler rateLimitDecisionMeterObservationHandler(MeterRegistry registry) {
		return new RateLimitDecisionMeterObservationHandler(registry);
	}

	@Bean
	@ConditionalOnBean(RateLimitBucketMetrics.class)
	ApplicationListener<RateLimitPoliciesReloadedEvent> rateLimitBucketMetricsReload(RateLimitBucketMetrics metrics) {
		return (event) -> metrics.policiesReloaded(event.getPolicies());
	}

	/**
	 * The {@code redis} store's calls, and the Redis-backed stores' breakers and failed
	 * calls, where Spring Data Redis is present.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.data.redis.core.ReactiveStringRedisTemplate")
	static final class RedisCallMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(RedisBucketStore.class)
		RateLimitRedisCallMetrics rateLimitRedisCallMetrics(RedisBucketStore store) {
			return new RateLimitRedisCallMetrics(store);
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(RemoteBucketStore.class)
		RateLimitRemoteStoreMetrics rateLimitRemoteStoreMetrics(ObjectProvider<RemoteBucketStore> stores) {
			return new RateLimitRemoteStoreMetrics(stores.orderedStream().toList());
		}

	}

}
