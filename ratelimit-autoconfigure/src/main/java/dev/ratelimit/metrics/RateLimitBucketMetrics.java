package dev.ratelimit.metrics;

import java.util.HashMap;
import java.util.LinkedHashMap;
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

	private final Map<String, BucketStore> storesByName;

	private RateLimitPolicies policies;

	/**
	 * The gauges registered, by registry, then by policy id.
	 */
	private final Map<MeterRegistry, Map<String, Gauge>> gauges = new LinkedHashMap<>();

	/**
	 * @param policies the configured policies
	 * @param storesByName the bucket stores by {@link BucketStore#name()}
	 */
	public RateLimitBucketMetrics(RateLimitPolicies policies, Map<String, BucketStore> storesByName) {
		this.policies = policies;
		this.storesByName = Map.copyOf(storesByName);
	}

	@Override
	public synchronized void bindTo(MeterRegistry registry) {
		Map<String, Gauge> registered = new HashMap<>();
		this.gauges.put(registry, registered);
		for (RateLimitPolicy policy : this.policies.byId().values()) {
			registered.put(policy.id(), register(registry, policy));
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

	private Gauge register(MeterRegistry registry, RateLimitPolicy policy) {
		BucketStore store = this.storesByName.get(policy.store().storeName());
		if (store == null) {
			throw new IllegalStateException("Policy '" + policy.id() + "' keeps its buckets in the '"
					+ policy.store().storeName() + "' store, but there is no such BucketStore bean");
		}
		return Gauge.builder(BUCKETS, new LiveBucketCount(store, policy), LiveBucketCount::read)
			.description("Live buckets of a rate limit policy")
			.tag("policy", policy.id())
			.tag("store", store.name())
			.strongReference(true)
			.register(registry);
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
