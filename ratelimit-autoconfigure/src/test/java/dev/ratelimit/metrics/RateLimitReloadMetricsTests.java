package dev.ratelimit.metrics;

import java.util.List;
import java.util.Set;

import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.PolicyReloads;
import dev.ratelimit.support.MonotonicClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitReloadMetrics}.
 */
class RateLimitReloadMetricsTests {

	@Test
	void countsReloadsByOutcome() {
		PolicyReloads reloads = new PolicyReloads(MonotonicClock.SYSTEM);
		MeterRegistry registry = new SimpleMeterRegistry();
		new RateLimitReloadMetrics(reloads).bindTo(registry);
		assertThat(count(registry, "accepted")).isZero();
		assertThat(count(registry, "rejected")).isZero();
		reloads.rejected(Set.of("ratelimit.policies.orders.tiers.anonymous[0].limit"), List.of(new ConfigurationProblem(
				"ratelimit.policies.orders.tiers.anonymous[0].limit", 0, "must be at least 1")));
		reloads.rejected(Set.of("ratelimit.policies.orders.shadwo"), List.of());
		reloads.accepted(Set.of("ratelimit.policies.orders.tiers.anonymous[0].limit"));
		assertThat(count(registry, "rejected")).isEqualTo(2);
		assertThat(count(registry, "accepted")).isEqualTo(1);
	}

	private static double count(MeterRegistry registry, String outcome) {
		return registry.get(RateLimitReloadMetrics.RELOADS).tag("outcome", outcome).functionCounter().count();
	}

}
