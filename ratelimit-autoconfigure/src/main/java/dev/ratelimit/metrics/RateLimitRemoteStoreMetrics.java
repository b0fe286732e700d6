package dev.ratelimit.metrics;

import java.util.List;

import dev.ratelimit.store.redis.CircuitBreaker;
import dev.ratelimit.store.redis.RemoteBucketStore;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds what the Redis-backed stores ({@code redis}, {@code hybrid}) know of Redis
 * failing: {@code ratelimit.store.circuit-breaker}, a gauge per store and breaker state
 * ({@code closed}, {@code open}, {@code half-open}) reading 1 for the state the breaker
 * is in and 0 for the others, and {@code ratelimit.store.errors}, the calls to Redis that
 * failed as the breaker counts them (a failed call several requests shared, once for each),
 * tagged store and {@code cause} {@code timeout} (no answer within
 * {@code ratelimit.redis.timeout}) or {@code error} (refused, reset, an error reply).
 * Both read counts and a state the stores keep anyway, on the scrape's thread; the
 * requests the failure mode decided meanwhile are {@code ratelimit.requests}' outcome
 * {@code error}.
 */
public final class RateLimitRemoteStoreMetrics implements MeterBinder {

	/** Name of the gauge of the circuit breakers' states. */
	public static final String CIRCUIT_BREAKER = "ratelimit.store.circuit-breaker";

	/** Name of the counter of failed calls to Redis. */
	public static final String ERRORS = "ratelimit.store.errors";

	private final List<RemoteBucketStore> stores;

	/**
	 * @param stores the Redis-backed stores
	 */
	public RateLimitRemoteStoreMetrics(List<RemoteBucketStore> stores) {
		this.stores = List.copyOf(stores);
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (RemoteBucketStore store : this.stores) {
			for (CircuitBreaker.State state : CircuitBreaker.State.values()) {
				Gauge.builder(CIRCUIT_BREAKER, store, (gauged) -> (gauged.circuitBreakerState() == state) ? 1 : 0)
					.description("Whether the circuit breaker of a store's calls to Redis is in this state (1) or not (0)")
					.tag("store", store.name())
					.tag("state", state.displayName())
					.strongReference(true)
					.register(registry);
			}
			FunctionCounter.builder(ERRORS, store, RemoteBucketStore::timedOutCalls)
				.description("Calls to Redis that failed, by cause")
				.tag("store", store.name())
				.tag("cause", "timeout")
				.register(registry);
			FunctionCounter.builder(ERRORS, store, RemoteBucketStore::failedCalls)
				.description("Calls to Redis that failed, by cause")
				.tag("store", store.name())
				.tag("cause", "error")
				.register(registry);
		}
	}

}
