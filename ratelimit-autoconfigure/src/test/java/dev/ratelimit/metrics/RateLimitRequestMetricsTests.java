package dev.ratelimit.metrics;

import java.util.concurrent.TimeUnit;

import dev.ratelimit.testsupport.Concurrently;
import dev.ratelimit.web.Outcome;
import dev.ratelimit.web.RateLimitListener.RouteTierListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitRequestMetrics}.
 */
class RateLimitRequestMetricsTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final RateLimitRequestMetrics metrics = new RateLimitRequestMetrics(this.registry);

	@Test
	void countsRequestsByPolicyTierRouteAndOutcome() {
		this.metrics.onDecision("orders", "free", "orders-route", "caffeine", Outcome.ALLOWED, 1000);
		this.metrics.onDecision("orders", "free", "orders-route", "caffeine", Outcome.ALLOWED, 1000);
		this.metrics.onDecision("orders", "free", "orders-route", "caffeine", Outcome.REJECTED, 1000);
		this.metrics.onDecision("orders", "pro", "orders-route", "caffeine", Outcome.ALLOWED, 1000);
		this.metrics.onDecision("orders", "free", "other-route", "caffeine", Outcome.SHADOW_REJECTED, 1000);
		assertThat(count("orders", "free", "orders-route", "allowed")).isEqualTo(2);
		assertThat(count("orders", "free", "orders-route", "rejected")).isEqualTo(1);
		assertThat(count("orders", "pro", "orders-route", "allowed")).isEqualTo(1);
		assertThat(count("orders", "free", "other-route", "shadow-rejected")).isEqualTo(1);
	}

	@Test
	void registersEveryOutcomeOfARouteAtZeroOnItsFirstDecision() {
		this.metrics.onDecision("orders", "free", "orders-route", "caffeine", Outcome.ALLOWED, 1000);
		assertThat(count("orders", "free", "orders-route", "error")).isZero();
		assertThat(this.registry.find(RateLimitRequestMetrics.REQUESTS).counters()).hasSize(Outcome.values().length);
	}

	@Test
	void neverTagsTheClientKey() {
		this.metrics.onDecision("orders", "free", "orders-route", "caffeine", Outcome.ALLOWED, 1000);
		assertThat(this.registry.find(RateLimitRequestMetrics.REQUESTS).counters())
			.allSatisfy((counter) -> assertThat(counter.getId().getTags())
				.extracting(io.micrometer.core.instrument.Tag::getKey)
				.containsExactlyInAnyOrder("policy", "tier", "route", "outcome"));
	}

	@Test
	void timesDecisionsPerStore() {
		this.metrics.onDecision("orders", "free", "orders-route", "caffeine", Outcome.ALLOWED, 2_000_000);
		this.metrics.onDecision("search", "free", "search-route", "caffeine", Outcome.REJECTED, 4_000_000);
		this.metrics.onDecision("search", "free", "search-route", "redis", Outcome.ERROR, 1_000_000);
		// Rejected for having no key: no store was asked, nothing to time.
		this.metrics.onDecision("search", "free", "search-route", "caffeine", Outcome.MISSING_KEY, 0);
		Timer caffeine = this.registry.get(RateLimitRequestMetrics.DECISION).tag("store", "caffeine").timer();
		assertThat(caffeine.count()).isEqualTo(2);
		assertThat(caffeine.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(6.0);
		assertThat(this.registry.get(RateLimitRequestMetrics.DECISION).tag("store", "redis").timer().count())
			.isEqualTo(1);
	}

	@Test
	void countsExemptRequestsWithoutTimingThem() {
		RouteTierListener bound = this.metrics.forRouteTier("orders", "free", "orders-route", "caffeine");
		bound.onDecision(Outcome.EXEMPT, 0);
		bound.onDecision(Outcome.EXEMPT, 0);
		bound.onDecision(Outcome.ALLOWED, 2_000_000);
		assertThat(count("orders", "free", "orders-route", "exempt")).isEqualTo(2);
		// Exempt: no store was asked, nothing to time.
		assertThat(this.registry.get(RateLimitRequestMetrics.DECISION).tag("store", "caffeine").timer().count())
			.isEqualTo(1);
	}

	@Test
	void aRouteTiersListenerRegistersItsMetersOnItsFirstDecisionAndSharesThem() {
		RouteTierListener bound = this.metrics.forRouteTier("orders", "free", "orders-route", "caffeine");
		assertThat(this.registry.getMeters()).isEmpty();
		bound.onDecision(Outcome.ALLOWED, 2_000_000);
		bound.onDecision(Outcome.REJECTED, 4_000_000);
		// Rejected for having no key: no store was asked, nothing to time.
		bound.onDecision(Outcome.MISSING_KEY, 0);
		this.metrics.onDecision("orders", "free", "orders-route", "caffeine", Outcome.ALLOWED, 1_000_000);
		assertThat(count("orders", "free", "orders-route", "allowed")).isEqualTo(2);
		assertThat(count("orders", "free", "orders-route", "rejected")).isEqualTo(1);
		assertThat(count("orders", "free", "orders-route", "missing-key")).isEqualTo(1);
		assertThat(this.registry.find(RateLimitRequestMetrics.REQUESTS).counters()).hasSize(Outcome.values().length);
		Timer caffeine = this.registry.get(RateLimitRequestMetrics.DECISION).tag("store", "caffeine").timer();
		assertThat(caffeine.count()).isEqualTo(3);
		assertThat(caffeine.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(7.0);
	}

	@Test
	void countsHoldsAndFullHoldsAsOutcomesAndTimesTheirDecisions() {
		this.metrics.onDelayed("payments", "free", "pay", "caffeine", Outcome.DELAYED, 1_000_000, 500_000_000);
		this.metrics.onDelayed("payments", "free", "pay", "caffeine", Outcome.DELAYED, 1_000_000, 1_000_000_000);
		this.metrics.onDelayed("payments", "free", "pay", "caffeine", Outcome.SHADOW_DELAYED, 1_000_000, 250_000_000);
		// Judged by the store, then refused because this node held as many as it may.
		this.metrics.onDecision("payments", "free", "pay", "caffeine", Outcome.HOLDS_FULL, 1_000_000);
		assertThat(count("payments", "free", "pay", "delayed")).isEqualTo(2);
		assertThat(count("payments", "free", "pay", "shadow-delayed")).isEqualTo(1);
		assertThat(count("payments", "free", "pay", "holds-full")).isEqualTo(1);
		assertThat(count("payments", "free", "pay", "allowed")).isZero();
		Timer decisions = this.registry.get(RateLimitRequestMetrics.DECISION).tag("store", "caffeine").timer();
		assertThat(decisions.count()).isEqualTo(4);
		assertThat(decisions.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(4.0);
	}

	@Test
	void timesEachHoldTaggedApartFromWhatAShadowPolicyWouldHaveHeld() {
		this.metrics.onDelayed("payments", "free", "pay", "caffeine", Outcome.DELAYED, 1000, 500_000_000);
		this.metrics.onDelayed("payments", "free", "pay", "caffeine", Outcome.DELAYED, 1000, 1_000_000_000);
		this.metrics.onDelayed("payments", "free", "pay", "caffeine", Outcome.SHADOW_DELAYED, 1000, 250_000_000);
		Timer delayed = hold("payments", "free", "pay", "delayed");
		assertThat(delayed.count()).isEqualTo(2);
		assertThat(delayed.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(1500.0);
		assertThat(delayed.max(TimeUnit.MILLISECONDS)).isEqualTo(1000.0);
		Timer shadowDelayed = hold("payments", "free", "pay", "shadow-delayed");
		assertThat(shadowDelayed.count()).isEqualTo(1);
		assertThat(shadowDelayed.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(250.0);
	}

	@Test
	void registersTheHoldTimersOfARouteOnItsFirstHoldBothAtOnce() {
		this.metrics.onDecision("orders", "free", "orders-route", "caffeine", Outcome.ALLOWED, 1000);
		this.metrics.onDecision("orders", "free", "orders-route", "caffeine", Outcome.REJECTED, 1000);
		assertThat(this.registry.find(RateLimitRequestMetrics.SHAPING_DELAY).timers()).isEmpty();
		this.metrics.onDelayed("orders", "free", "orders-route", "caffeine", Outcome.DELAYED, 1000, 500_000_000);
		assertThat(this.registry.find(RateLimitRequestMetrics.SHAPING_DELAY).timers()).hasSize(2)
			.allSatisfy((timer) -> assertThat(timer.getId().getTags()).extracting(io.micrometer.core.instrument.Tag::getKey)
				.containsExactlyInAnyOrder("policy", "tier", "route", "outcome"));
		assertThat(hold("orders", "free", "orders-route", "shadow-delayed").count()).isZero();
	}

	@Test
	void aRouteTiersListenerTimesHoldsIntoTheSameTimers() {
		RouteTierListener bound = this.metrics.forRouteTier("payments", "free", "pay", "caffeine");
		bound.onDecision(Outcome.ALLOWED, 1_000_000);
		assertThat(this.registry.find(RateLimitRequestMetrics.SHAPING_DELAY).timers()).isEmpty();
		bound.onDelayed(Outcome.DELAYED, 1_000_000, 500_000_000);
		bound.onDelayed(Outcome.DELAYED, 1_000_000, 1_500_000_000);
		bound.onDelayed(Outcome.SHADOW_DELAYED, 1_000_000, 250_000_000);
		this.metrics.onDelayed("payments", "free", "pay", "caffeine", Outcome.DELAYED, 1_000_000, 1_000_000_000);
		assertThat(count("payments", "free", "pay", "delayed")).isEqualTo(3);
		assertThat(count("payments", "free", "pay", "shadow-delayed")).isEqualTo(1);
		Timer delayed = hold("payments", "free", "pay", "delayed");
		assertThat(delayed.count()).isEqualTo(3);
		assertThat(delayed.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(3000.0);
		assertThat(hold("payments", "free", "pay", "shadow-delayed").count()).isEqualTo(1);
		assertThat(this.registry.find(RateLimitRequestMetrics.SHAPING_DELAY).timers()).hasSize(2);
		assertThat(this.registry.get(RateLimitRequestMetrics.DECISION).tag("store", "caffeine").timer().count())
			.isEqualTo(5);
	}

	@Test
	void threadsRacingOnANewRouteTierListenerShareOneSetOfCounters() throws Exception {
		RouteTierListener bound = this.metrics.forRouteTier("orders", "free", "orders-route", "caffeine");
		int threads = 8;
		int decisionsPerThread = 2_000;
		Concurrently.run(threads, (thread) -> {
			for (int i = 0; i < decisionsPerThread; i++) {
				bound.onDecision(Outcome.ALLOWED, 1000);
			}
		});
		assertThat(count("orders", "free", "orders-route", "allowed")).isEqualTo(threads * decisionsPerThread);
		assertThat(this.registry.find(RateLimitRequestMetrics.REQUESTS).counters()).hasSize(Outcome.values().length);
	}

	@Test
	void threadsRacingOnANewRouteShareOneSetOfCounters() throws Exception {
		int threads = 8;
		int decisionsPerThread = 2_000;
		Concurrently.run(threads, (thread) -> {
			for (int i = 0; i < decisionsPerThread; i++) {
				this.metrics.onDecision("orders", "free", "orders-route", "caffeine", Outcome.ALLOWED, 1000);
			}
		});
		assertThat(count("orders", "free", "orders-route", "allowed")).isEqualTo(threads * decisionsPerThread);
		assertThat(this.registry.find(RateLimitRequestMetrics.REQUESTS).counters()).hasSize(Outcome.values().length);
	}

	private Timer hold(String policy, String tier, String route, String outcome) {
		return this.registry.get(RateLimitRequestMetrics.SHAPING_DELAY)
			.tag("policy", policy)
			.tag("tier", tier)
			.tag("route", route)
			.tag("outcome", outcome)
			.timer();
	}

	private double count(String policy, String tier, String route, String outcome) {
		Counter counter = this.registry.get(RateLimitRequestMetrics.REQUESTS)
			.tag("policy", policy)
			.tag("tier", tier)
			.tag("route", route)
			.tag("outcome", outcome)
			.counter();
		return counter.count();
	}

}
