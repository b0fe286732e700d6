package dev.ratelimit.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.policy.ConfigurationChecks;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.store.redis.BucketScript;
import dev.ratelimit.store.redis.CircuitBreaker;
import dev.ratelimit.store.redis.FailureMode;
import dev.ratelimit.store.redis.RemoteFailureGuard;
import dev.ratelimit.support.ConfigName;
import dev.ratelimit.support.MonotonicClock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * What the {@code redis} and {@code hybrid} stores are built from, with the start-up
 * checks of their properties.
 */
final class RemoteStores {

	private RemoteStores() {
	}

	/**
	 * The template on the application's Redis connection.
	 * @throws InvalidRateLimitConfigurationException when there is no connection
	 * factory
	 */
	static ReactiveStringRedisTemplate template(StoreType store,
			ObjectProvider<ReactiveRedisConnectionFactory> connectionFactory) {
		ReactiveRedisConnectionFactory factory = connectionFactory.getIfAvailable();
		if (factory == null) {
			throw new InvalidRateLimitConfigurationException(List.of(new ConfigurationProblem(
					"ratelimit.store (or ratelimit.policies.<id>.store)", store.storeName(),
					"needs a ReactiveRedisConnectionFactory bean: add spring-boot-starter-data-redis-reactive and "
							+ "point spring.data.redis.* at your Redis")));
		}
		return new ReactiveStringRedisTemplate(factory);
	}

	/**
	 * The bucket script on the template, its slots leased for
	 * {@code ratelimit.redis.slot-lease-time}.
	 * @throws InvalidRateLimitConfigurationException when a {@code ratelimit.redis.*}
	 * property is invalid
	 */
	static BucketScript script(ReactiveStringRedisTemplate template, RateLimitRedisProperties properties) {
		validate(properties);
		try {
			return new BucketScript(template, properties.getKeyPrefix(), properties.getSlotLeaseTime());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitConfigurationException(List.of(new ConfigurationProblem(
					"ratelimit.redis.key-prefix", properties.getKeyPrefix(), "must be non-blank, without '{' or '}'")));
		}
	}

	/**
	 * A guard of its own for each store: one store's failures never open the other's
	 * breaker.
	 */
	static RemoteFailureGuard guard(String storeName, RateLimitRedisProperties properties,
			ObjectProvider<CaffeineBucketStore> localStore) {
		// Real time, whatever clock the local store runs on: Redis time is real.
		MonotonicClock clock = MonotonicClock.SYSTEM;
		validate(properties);
		CaffeineBucketStore local = localStore.getIfAvailable();
		if (properties.getOnFailure() == FailureMode.LOCAL && local == null) {
			throw new InvalidRateLimitConfigurationException(List.of(new ConfigurationProblem(
					"ratelimit.redis.on-failure", "local",
					"needs the caffeine store: add Caffeine (com.github.ben-manes.caffeine:caffeine) to the "
							+ "classpath, or choose allow or deny")));
		}
		RateLimitRedisProperties.CircuitBreaker breaker = properties.getCircuitBreaker();
		return new RemoteFailureGuard(storeName, properties.getOnFailure(),
				new CircuitBreaker(clock, breaker.getFailureThreshold(), breaker.getOpenDuration().toNanos()),
				breaker.getProbeInterval(), local, clock);
	}

	/**
	 * Most requests one shared call may judge: its arguments and reply stay small.
	 */
	static final int MAX_BATCH = 1024;

	/**
	 * Checks every {@code ratelimit.redis.*} property, reporting all problems at once.
	 */
	static void validate(RateLimitRedisProperties properties) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		ConfigurationChecks.positive("ratelimit.redis.timeout", properties.getTimeout(), problems);
		if (properties.getOnFailure() == null) {
			problems.add(new ConfigurationProblem("ratelimit.redis.on-failure", null,
					"must be " + ConfigName.oneOf(FailureMode.values())));
		}
		ConfigurationChecks.positive("ratelimit.redis.max-reconnect-delay", properties.getMaxReconnectDelay(),
				problems);
		RateLimitRedisProperties.CircuitBreaker breaker = properties.getCircuitBreaker();
		if (breaker.getFailureThreshold() < 1) {
			problems.add(new ConfigurationProblem("ratelimit.redis.circuit-breaker.failure-threshold",
					breaker.getFailureThreshold(), "must be at least 1"));
		}
		ConfigurationChecks.positive("ratelimit.redis.circuit-breaker.open-duration", breaker.getOpenDuration(),
				problems);
		ConfigurationChecks.positive("ratelimit.redis.circuit-breaker.probe-interval", breaker.getProbeInterval(),
				problems);
		ConfigurationChecks.positive("ratelimit.redis.slot-lease-time", properties.getSlotLeaseTime(), problems);
		int maxBatch = properties.getSharedCalls().getMaxBatch();
		if (maxBatch < 1 || maxBatch > MAX_BATCH) {
			problems.add(new ConfigurationProblem("ratelimit.redis.shared-calls.max-batch", maxBatch,
					"must be from 1 (every request its own call) to " + MAX_BATCH));
		}
		ConfigurationChecks.requireNone(problems);
	}

}
