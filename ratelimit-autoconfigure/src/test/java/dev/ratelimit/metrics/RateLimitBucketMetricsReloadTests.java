package dev.ratelimit.metrics;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.testsupport.FixedSnapshotsInspector;
import dev.ratelimit.testsupport.TestPolicies;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static dev.ratelimit.testsupport.FixedSnapshotsInspector.fixedWindow;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ratelimit.buckets} gauges following reloaded policies.
 */
class RateLimitBucketMetricsReloadTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final FixedSnapshotsInspector caffeine = new FixedSnapshotsInspector("caffeine");

	private final FixedSnapshotsInspector redis = new FixedSnapshotsInspector("redis");

	private final RateLimitBucketMetrics metrics = new RateLimitBucketMetrics(TestPolicies.policies(),
			new BucketStores(List.of(), List.of(this.caffeine, this.redis)));

	@Test
	void aRemovedPolicyLosesItsGaugeAndAnAddedOneGetsOne() {
		this.metrics.bindTo(this.registry);
		RateLimitPolicies initial = TestPolicies.policies();
		RateLimitPolicy orders = initial.policy("orders");
		RateLimitPolicy invoices = new RateLimitPolicy("invoices", orders.key(), false, 1, StoreType.CAFFEINE,
				orders.tiers(), orders.defaultTier());
		this.metrics.policiesReloaded(policies(orders, invoices));
		this.caffeine.add("invoices", "anonymous", "a", 1, fixedWindow(10, 9));
		assertThat(gauge("invoices").value()).isEqualTo(1.0);
		assertThat(gauge("orders")).isNotNull();
		assertThat(this.registry.find(RateLimitBucketMetrics.BUCKETS).tag("policy", "search").gauge()).isNull();
	}

	@Test
	void aPolicyMovedToAnotherStoreIsGaugedThere() {
		this.metrics.bindTo(this.registry);
		RateLimitPolicy orders = TestPolicies.policies().policy("orders");
		RateLimitPolicy moved = new RateLimitPolicy("orders", orders.key(), false, 1, StoreType.REDIS,
				orders.tiers(), orders.defaultTier());
		this.metrics.policiesReloaded(policies(moved));
		this.redis.add("orders", "anonymous", "a", 1, fixedWindow(10, 9));
		assertThat(this.registry.find(RateLimitBucketMetrics.BUCKETS).tag("policy", "orders").gauges())
			.singleElement()
			.satisfies((gauge) -> {
				assertThat(gauge.getId().getTag("store")).isEqualTo("redis");
				assertThat(gauge.value()).isEqualTo(1.0);
			});
	}

	private static RateLimitPolicies policies(RateLimitPolicy... policies) {
		Map<String, RateLimitPolicy> byId = new LinkedHashMap<>();
		for (RateLimitPolicy policy : policies) {
			byId.put(policy.id(), policy);
		}
		return new RateLimitPolicies(byId, Map.of());
	}

	private Gauge gauge(String policy) {
		return this.registry.get(RateLimitBucketMetrics.BUCKETS).tag("policy", policy).gauge();
	}

}
