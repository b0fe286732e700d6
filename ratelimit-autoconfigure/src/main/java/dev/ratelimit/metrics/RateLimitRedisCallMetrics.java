package dev.ratelimit.metrics;

import dev.ratelimit.store.redis.RedisBucketStore;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds what the {@code redis} store's decisions cost Redis: {@code ratelimit.redis.calls},
 * the decision calls sent (a call several concurrent requests of one bucket share counts
 * once), and {@code ratelimit.redis.decisions}, the requests decided, tagged
 * {@code judged} {@code redis} (in those calls) or {@code locally} (refused by this node,
 * repeating Redis's refusal of their bucket until its retry-after). Calls per request is
 * the first over the sum of the second.
 */
public final class RateLimitRedisCallMetrics implements MeterBinder {

	/** Name of the counter of decision calls. */
	public static final String CALLS = "ratelimit.redis.calls";

	/** Name of the counter of requests decided. */
	public static final String DECISIONS = "ratelimit.redis.decisions";

	private final RedisBucketStore store;

	/**
	 * @param store the store whose calls are counted
	 */
	public RateLimitRedisCallMetrics(RedisBucketStore store) {
		this.store = store;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		FunctionCounter.builder(CALLS, this.store, RedisBucketStore::decisionCalls)
			.description("Decision calls the redis store sent to Redis; a shared call counts once")
			.register(registry);
		FunctionCounter.builder(DECISIONS, this.store, RedisBucketStore::judgedOnRedis)
			.description("Requests the redis store decided, by where they were judged")
			.tag("judged", "redis")
			.register(registry);
		FunctionCounter.builder(DECISIONS, this.store, RedisBucketStore::refusedLocally)
			.description("Requests the redis store decided, by where they were judged")
			.tag("judged", "locally")
			.register(registry);
	}

}
