package dev.ratelimit.metrics;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.testsupport.DecideOnlyStore;
import dev.ratelimit.testsupport.FixedSnapshotsInspector;
import dev.ratelimit.testsupport.TestPolicies;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import static dev.ratelimit.testsupport.FixedSnapshotsInspector.fixedWindow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link RateLimitBucketMetrics}.
 */
class RateLimitBucketMetricsTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	@Test
	void gaugesLiveBucketsPerPolicyFromASynchronousStore() {
		FixedSnapshotsInspector store = new FixedSnapshotsInspector("caffeine");
		store.add("orders", "free", "a", 1, fixedWindow(10, 9)).add("orders", "free", "b", 1, fixedWindow(10, 9));
		new RateLimitBucketMetrics(TestPolicies.policies(), inspecting(store)).bindTo(this.registry);
		assertThat(gauge("orders").value()).isEqualTo(2.0);
		assertThat(gauge("search").value()).isZero();
		store.add("search", "anonymous", "c", 1, fixedWindow(5, 4));
		assertThat(gauge("search").value()).isEqualTo(1.0);
		assertThat(gauge("orders").getId().getTag("store")).isEqualTo("caffeine");
	}

	@Test
	void gaugeOfASlowStoreNeverWaitsAndAnswersTheLastCount() {
		AtomicReference<Sinks.One<Long>> pending = new AtomicReference<>();
		FixedSnapshotsInspector slow = new FixedSnapshotsInspector("caffeine") {

			@Override
			public Mono<Long> bucketCount(RateLimitPolicy policy) {
				Sinks.One<Long> count = Sinks.one();
				pending.set(count);
				return count.asMono();
			}

		};
		new RateLimitBucketMetrics(TestPolicies.policies(), inspecting(slow)).bindTo(this.registry);
		Gauge orders = gauge("orders");
		assertThat(orders.value()).isNaN();
		pending.get().tryEmitValue(7L);
		assertThat(orders.value()).isEqualTo(7.0);
		pending.get().tryEmitError(new IllegalStateException("remote down"));
		assertThat(orders.value()).isNaN();
	}

	@Test
	void policyWhoseStoreIsMissingFailsNamingPolicyAndStore() {
		RateLimitBucketMetrics metrics = new RateLimitBucketMetrics(TestPolicies.policies(),
				inspecting(new FixedSnapshotsInspector("redis")));
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> metrics.bindTo(this.registry))
			.withMessageMatching("(?s).*ratelimit\\.policies\\.(orders|search)\\.store \\(or ratelimit\\.store\\): was caffeine.*")
			.withMessageContaining("[redis]");
	}

	@Test
	void policyWhoseStoreOnlyDecidesHasNoGauge() {
		FixedSnapshotsInspector search = new FixedSnapshotsInspector("redis");
		DecideOnlyStore decideOnly = new DecideOnlyStore("caffeine");
		new RateLimitBucketMetrics(TestPolicies.policies(), new BucketStores(List.of(decideOnly), List.of(search)))
			.bindTo(this.registry);
		assertThat(this.registry.find(RateLimitBucketMetrics.BUCKETS).gauges()).isEmpty();
	}

	private static BucketStores inspecting(FixedSnapshotsInspector store) {
		return new BucketStores(List.of(), List.of(store));
	}

	private Gauge gauge(String policy) {
		return this.registry.get(RateLimitBucketMetrics.BUCKETS).tag("policy", policy).gauge();
	}

}
