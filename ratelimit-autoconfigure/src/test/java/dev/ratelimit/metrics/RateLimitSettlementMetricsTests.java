package dev.ratelimit.metrics;

import dev.ratelimit.web.RateLimitListener.RouteTierListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitSettlementMetricsTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final RateLimitSettlementMetrics metrics = new RateLimitSettlementMetrics(this.registry);

	@Test
	void countsUnitsChargedAndRefundedByRouteAndTier() {
		RouteTierListener chat = this.metrics.forRouteTier("chat", "free", "chat-route", "caffeine");
		chat.onCharged(120);
		chat.onCharged(30);
		chat.onRefunded(45);
		this.metrics.onCharged("chat", "free", "chat-route", "caffeine", 5);
		assertThat(units("charged")).isEqualTo(155);
		assertThat(units("refunded")).isEqualTo(45);
	}

	@Test
	void countsUnreadableCostsByReason() {
		RouteTierListener chat = this.metrics.forRouteTier("chat", "free", "chat-route", "caffeine");
		chat.onUnreadableCost("malformed");
		chat.onUnreadableCost("malformed");
		chat.onUnreadableCost("encoding");
		assertThat(this.registry.get(RateLimitSettlementMetrics.UNREADABLE_COST).tag("reason", "malformed").counter().count())
			.isEqualTo(2);
		assertThat(this.registry.get(RateLimitSettlementMetrics.UNREADABLE_COST).tag("reason", "encoding").counter().count())
			.isEqualTo(1);
	}

	@Test
	void gaugesTheSlotsInFlightPerPolicyAcrossRoutes() {
		RouteTierListener first = this.metrics.forRouteTier("exports", "free", "a", "redis");
		RouteTierListener second = this.metrics.forRouteTier("exports", "pro", "b", "redis");
		first.onSlotTaken();
		second.onSlotTaken();
		second.onSlotTaken();
		assertThat(inFlight("exports")).isEqualTo(3);
		first.onSlotReleased();
		second.onSlotReleased();
		this.metrics.onSlotReleased("exports", "pro", "b", "redis");
		assertThat(inFlight("exports")).isZero();
	}

	@Test
	void registersNothingUntilSomethingIsSettled() {
		this.metrics.forRouteTier("orders", "free", "orders", "caffeine");
		assertThat(this.registry.getMeters()).isEmpty();
	}

	private double units(String direction) {
		return this.registry.get(RateLimitSettlementMetrics.SETTLED_UNITS)
			.tag("policy", "chat")
			.tag("tier", "free")
			.tag("route", "chat-route")
			.tag("direction", direction)
			.counter()
			.count();
	}

	private double inFlight(String policy) {
		return this.registry.get(RateLimitSettlementMetrics.IN_FLIGHT).tag("policy", policy).gauge().value();
	}

}
