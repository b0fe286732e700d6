package dev.ratelimit.metrics;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.store.BucketInspector;
import dev.ratelimit.store.BucketStores;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

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

	private final BucketStores stores;

	private RateLimitPolicies policies;

	/**
	 * The gauges registered, by registry, then by policy id.
	 */
	private final Map<MeterRegistry, Map<String, Gauge>> gauges = new LinkedHashMap<>();

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
	public synchronized void bindTo(MeterRegistry registry) {
		Map<String, Gauge> registered = new HashMap<>();
		this.gauges.put(registry, registered);
		for (RateLimitPolicy policy : this.policies.byId().values()) {
			Gauge gauge = register(registry, policy);
			if (gauge != null) {
				registered.put(policy.id(), gauge);
			}
		}
	}

	/**
	 * Follow reloaded policies: a gauge for each policy added, none left for a policy
	 * removed, and a policy moved to another store gauged there.
	 */
	public synchronized void policiesReloaded(RateLimitPolicies reloaded) {
		this.policies = reloaded;
		this.gauges.forEach((registry, registered) -> {
			registered.entrySet().removeIf((entry) -> {
				RateLimitPolicy policy = reloaded.policy(entry.getKey());
				boolean stale = policy == null
						|| !policy.store().storeName().equals(entry.getValue().getId().getTag("store"));
				if (stale) {
					registry.remove(entry.getValue());
				}
				return stale;
			});
			for (RateLimitPolicy policy : reloaded.byId().values()) {
				registered.computeIfAbsent(policy.id(), (id) -> register(registry, policy));
			}
		});
	}

	/**
	 * The gauge of a policy's live buckets, or {@code null} when its store cannot be
	 * inspected.
	 */
	private @Nullable Gauge register(MeterRegistry registry, RateLimitPolicy policy) {
		BucketInspector store = this.stores.inspector(policy);
		if (store == null) {
			return null;
		}
		return Gauge.builder(BUCKETS, new LiveBucketCount(store, policy), LiveBucketCount::read)
			.description("Live buckets of a rate limit policy")
			.tag("policy", policy.id())
			.tag("store", store.name())
			.strongReference(true)
			.register(registry);
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
