package dev.ratelimit.autoconfigure;

import java.time.Duration;

import dev.ratelimit.store.hybrid.HybridBucketStore;
import dev.ratelimit.store.redis.BucketScript;
import dev.ratelimit.store.redis.CircuitBreaker;
import dev.ratelimit.store.redis.FailureMode;
import dev.ratelimit.store.redis.RedisBucketStore;
import dev.ratelimit.store.redis.RemoteFailureGuard;
import dev.ratelimit.support.MonotonicClock;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedisStoreAutoConfiguration}: the remote stores exist only when a policy uses
 * them, back off for the user's own, and misconfiguration fails at start-up naming
 * the property. No Redis is contacted: connections are lazy.
 */
class RedisStoreAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				DataRedisReactiveAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RedisStoreAutoConfiguration.class))
		.withPropertyValues("ratelimit.policies.orders.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.orders.tiers.anonymous[0].limit=10",
				"ratelimit.policies.orders.tiers.anonymous[0].window=1m");

	@Test
	void noRemoteStoreWhenEveryPolicyIsLocal() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(RedisBucketStore.class)
			.doesNotHaveBean(HybridBucketStore.class));
	}

	@Test
	void redisStoreWhenTheGlobalStoreIsRedis() {
		this.contextRunner.withPropertyValues("ratelimit.store=redis")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisBucketStore.class)
				.doesNotHaveBean(HybridBucketStore.class));
	}

	@Test
	void hybridStoreWhenOnePolicyIsHybrid() {
		this.contextRunner.withPropertyValues("ratelimit.policies.orders.store=hybrid")
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.hasSingleBean(HybridBucketStore.class)
					.doesNotHaveBean(RedisBucketStore.class);
				assertThat(context.getBean(HybridBucketStore.class).isRunning()).isTrue();
			});
	}

	@Test
	void propertiesAreBoundWithTheirDefaults() {
		this.contextRunner.withPropertyValues("ratelimit.store=redis").run((context) -> {
			RateLimitRedisProperties redis = context.getBean(RateLimitRedisProperties.class);
			assertThat(redis.getKeyPrefix()).isEqualTo("rl");
			assertThat(redis.getTimeout()).hasSeconds(1);
			assertThat(redis.getMaxReconnectDelay()).hasSeconds(1);
			assertThat(redis.getCircuitBreaker().getProbeInterval()).hasSeconds(1);
			assertThat(redis.getOnFailure().configName()).isEqualTo("allow");
			assertThat(redis.getSlotLeaseTime()).hasSeconds(30);
			assertThat(context.getBean(RateLimitHybridProperties.class).getSyncInterval()).hasMillis(100);
		});
	}

	@Test
	void backsOffForTheUsersOwnStore() {
		this.contextRunner.withPropertyValues("ratelimit.store=redis")
			.withUserConfiguration(UserStoreConfiguration.class)
			.run((context) -> assertThat(context).getBean(RedisBucketStore.class)
				.isSameAs(context.getBean("userRedisStore")));
	}

	@Test
	void disabledWithTheMasterSwitch() {
		this.contextRunner.withPropertyValues("ratelimit.store=redis", "ratelimit.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RedisBucketStore.class));
	}

	@Test
	void redisStoreWithoutSpringDataRedisFailsNamingThePropertyAndTheStarter() {
		this.contextRunner.withPropertyValues("ratelimit.store=redis")
			.withClassLoader(new FilteredClassLoader(ReactiveRedisConnectionFactory.class))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.policies.orders.store (or ratelimit.store)")
				.hasMessageContaining("spring-boot-starter-data-redis-reactive"));
	}

	@Test
	void invalidRedisPropertiesFailNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("ratelimit.store=redis", "ratelimit.redis.timeout=0ms",
					"ratelimit.redis.circuit-breaker.failure-threshold=0",
					"ratelimit.redis.circuit-breaker.probe-interval=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.redis.timeout")
				.hasMessageContaining("ratelimit.redis.circuit-breaker.failure-threshold")
				.hasMessageContaining("ratelimit.redis.circuit-breaker.probe-interval"));
	}

	/**
	 * Each store's background probe runs while the context does and stops when it
	 * closes.
	 */
	@Test
	void theProbesRunWithTheContextAndStopWhenItCloses() {
		this.contextRunner.withPropertyValues("ratelimit.store=redis", "ratelimit.policies.orders.store=hybrid",
				"ratelimit.policies.invoices.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.invoices.tiers.anonymous[0].limit=10",
				"ratelimit.policies.invoices.tiers.anonymous[0].window=1m")
			.run((context) -> {
				RedisBucketStore redis = context.getBean(RedisBucketStore.class);
				HybridBucketStore hybrid = context.getBean(HybridBucketStore.class);
				assertThat(redis.isRunning()).isTrue();
				assertThat(hybrid.isRunning()).isTrue();
				context.close();
				assertThat(redis.isRunning()).isFalse();
				assertThat(hybrid.isRunning()).isFalse();
			});
	}

	@Test
	void theMaxReconnectDelayReachesTheApplicationsLettuceClient() {
		this.contextRunner.withPropertyValues("ratelimit.store=redis", "ratelimit.redis.max-reconnect-delay=300ms")
			.run((context) -> {
				Delay delay = context.getBean(ClientResources.class).reconnectDelay();
				assertThat(delay.createDelay(1)).hasMillis(1);
				assertThat(delay.createDelay(8)).hasMillis(128);
				assertThat(delay.createDelay(9)).hasMillis(256);
				assertThat(delay.createDelay(10)).hasMillis(300);
				assertThat(delay.createDelay(30)).hasMillis(300);
			});
	}

	@Test
	void theHybridStoreBoundsTheReconnectDelayToo() {
		this.contextRunner.withPropertyValues("ratelimit.policies.orders.store=hybrid")
			.run((context) -> assertThat(context.getBean(ClientResources.class).reconnectDelay().createDelay(30))
				.hasSeconds(1));
	}

	@Test
	void theApplicationsLettuceClientIsLeftAloneWithoutARemoteStore() {
		this.contextRunner.run((context) -> {
			assertThat(context).doesNotHaveBean("rateLimitReconnectDelayCustomizer");
			assertThat(context.getBean(ClientResources.class).reconnectDelay().createDelay(30)).hasSeconds(30);
		});
	}

	@Test
	void zeroMaxReconnectDelayFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("ratelimit.store=redis", "ratelimit.redis.max-reconnect-delay=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.redis.max-reconnect-delay"));
	}

	@Test
	void aSlotLeaseTimeThatIsNotPositiveFailsNamingThePropertyAndTheValue() {
		this.contextRunner.withPropertyValues("ratelimit.store=redis", "ratelimit.redis.slot-lease-time=-5s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.redis.slot-lease-time")
				.hasMessageContaining("-5s")
				.hasMessageContaining("positive duration"));
	}

	@Test
	void aMaxBatchOutOfRangeFailsNamingThePropertyAndTheValue() {
		for (String maxBatch : new String[] { "0", "1025" }) {
			this.contextRunner
				.withPropertyValues("ratelimit.store=redis", "ratelimit.redis.shared-calls.max-batch=" + maxBatch)
				.run((context) -> assertThat(context).hasFailed()
					.getFailure()
					.rootCause()
					.hasMessageContaining("ratelimit.redis.shared-calls.max-batch")
					.hasMessageContaining(maxBatch)
					.hasMessageContaining("from 1"));
		}
	}

	@Test
	void keyPrefixWithABraceFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("ratelimit.store=redis", "ratelimit.redis.key-prefix=rl{x}")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.redis.key-prefix"));
	}

	@Test
	void zeroSyncIntervalFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("ratelimit.store=hybrid", "ratelimit.hybrid.sync-interval=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.hybrid.sync-interval"));
	}

	@Configuration(proxyBeanMethods = false)
	static class UserStoreConfiguration {

		@Bean
		RedisBucketStore userRedisStore(ReactiveRedisConnectionFactory connectionFactory) {
			ReactiveStringRedisTemplate template = new ReactiveStringRedisTemplate(connectionFactory);
			RemoteFailureGuard guard = new RemoteFailureGuard("redis", FailureMode.DENY,
					new CircuitBreaker(MonotonicClock.SYSTEM, 1, Duration.ofSeconds(1).toNanos()), Duration.ofSeconds(1),
					null, MonotonicClock.SYSTEM);
			return new RedisBucketStore(new BucketScript(template, "user"), Duration.ofSeconds(1), guard,
					MonotonicClock.SYSTEM);
		}

	}

}
