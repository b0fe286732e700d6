package dev.ratelimit.metrics;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.store.BucketInspector;
import dev.ratelimit.store.BucketStores;
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

	private final BucketStores stores;

	/**
	 * @param policies the configured policies
	 * @param stores the stores, of which a policy's is inspected; a policy whose store
	 * cannot be inspected has no gauge
	 */
	public RateLimitBucketMetrics(RateLimitPolicies policies, BucketStores stores) {
		this.policies = policies;
		this.stores = stores;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (RateLimitPolicy policy : this.policies.byId().values()) {
			BucketInspector store = this.stores.inspector(policy);
			if (store == null) {
				continue;
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

		private final BucketInspector store;

		private final RateLimitPolicy policy;

		private final AtomicBoolean counting = new AtomicBoolean();

		private volatile double lastCount = Double.NaN;

		LiveBucketCount(BucketInspector store, RateLimitPolicy policy) {
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
