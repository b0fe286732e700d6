package dev.ratelimit.metrics;

import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.store.BucketStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds a {@code ratelimit.buckets} gauge per policy: its live buckets, tagged policy
 * and store.
 * <p>
 * A gauge is read on the scrape's thread, which may be an event loop, so reading one
 * never waits for a store: it starts a count and answers the last count known. A
 * store that counts synchronously (Caffeine) is therefore always current; a remote
 * store lags by one read. Until a remote store's first count arrives, or after a
 * count fails, the gauge reads NaN (unknown) rather than a stale or invented number.
 */
public final class RateLimitBucketMetrics implements MeterBinder {

	/** Name of the gauge of live buckets. */
	public static final String BUCKETS = "ratelimit.buckets";

	private final RateLimitPolicies policies;

	private final Map<String, BucketStore> storesByName;

	/**
	 * @param policies the configured policies
	 * @param storesByName the bucket stores by {@link BucketStore#name()}
	 */
	public RateLimitBucketMetrics(RateLimitPolicies policies, Map<String, BucketStore> storesByName) {
		this.policies = policies;
		this.storesByName = Map.copyOf(storesByName);
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (RateLimitPolicy policy : this.policies.byId().values()) {
			BucketStore store = this.storesByName.get(policy.store().storeName());
			if (store == null) {
				throw new IllegalStateException("Policy '" + policy.id() + "' keeps its buckets in the '"
						+ policy.store().storeName() + "' store, but there is no such BucketStore bean");
			}
			Gauge.builder(BUCKETS, new LiveBucketCount(store, policy), LiveBucketCount::read)
				.description("Live buckets of a rate limit policy")
				.tag("policy", policy.id())
				.tag("store", store.name())
				.strongReference(true)
				.register(registry);
		}
	}

	private static final class LiveBucketCount {

		private final BucketStore store;

		private final RateLimitPolicy policy;

		private final AtomicBoolean counting = new AtomicBoolean();

		private volatile double lastCount = Double.NaN;

		LiveBucketCount(BucketStore store, RateLimitPolicy policy) {
			this.store = store;
			this.policy = policy;
		}

		double read() {
			if (this.counting.compareAndSet(false, true)) {
				this.store.bucketCount(this.policy)
					.doFinally((signal) -> this.counting.set(false))
					.subscribe((count) -> this.lastCount = count, (failure) -> this.lastCount = Double.NaN);
			}
			return this.lastCount;
		}

	}

}
