package dev.ratelimit.metrics;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.web.Outcome;
import dev.ratelimit.web.RateLimitListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Records what settling exchanges after their responses changes:
 * {@code ratelimit.settled.units} (a counter of units, tagged policy, tier, route and
 * {@code direction} {@code charged} or {@code refunded}), {@code ratelimit.response.cost.unreadable}
 * (a counter of responses whose cost could not be read, their estimate standing, tagged
 * policy, tier, route and {@code reason}) and {@code ratelimit.in-flight} (a gauge of the
 * requests holding a slot of an in-flight limit on this node, tagged policy). Meters are
 * registered the first time a route and tier settle something and kept by its judge's
 * listener, so that the request path looks nothing up afterwards; unreadable costs, rare,
 * are looked up by reason.
 */
public final class RateLimitSettlementMetrics implements RateLimitListener {

	/** Name of the counter of units charged and given back after responses. */
	public static final String SETTLED_UNITS = "ratelimit.settled.units";

	/** Name of the counter of responses whose cost could not be read. */
	public static final String UNREADABLE_COST = "ratelimit.response.cost.unreadable";

	/** Name of the gauge of requests in flight holding a slot. */
	public static final String IN_FLIGHT = "ratelimit.in-flight";

	private final MeterRegistry registry;

	private final ConcurrentMap<String, AtomicLong> inFlightByPolicy = new ConcurrentHashMap<>();

	public RateLimitSettlementMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	/**
	 * Settlements are told to each route's bound listener; a decision is not this
	 * listener's to record.
	 */
	@Override
	public void onDecision(String policy, String tier, String routeId, String store, Outcome outcome,
			long decisionNanos) {
	}

	@Override
	public void onCharged(String policy, String tier, String routeId, String store, long units) {
		units(policy, tier, routeId, "charged").increment(units);
	}

	@Override
	public void onRefunded(String policy, String tier, String routeId, String store, long units) {
		units(policy, tier, routeId, "refunded").increment(units);
	}

	@Override
	public void onUnreadableCost(String policy, String tier, String routeId, String store, String reason) {
		unreadable(policy, tier, routeId, reason).increment();
	}

	@Override
	public void onSlotTaken(String policy, String tier, String routeId, String store) {
		inFlight(policy).incrementAndGet();
	}

	@Override
	public void onSlotReleased(String policy, String tier, String routeId, String store) {
		inFlight(policy).decrementAndGet();
	}

	@Override
	public RouteTierListener forRouteTier(String policy, String tier, String routeId, String store) {
		return new RouteTierSettlements(policy, tier, routeId);
	}

	private Counter units(String policy, String tier, String routeId, String direction) {
		return Counter.builder(SETTLED_UNITS)
			.description("Units taken after responses (counted responses, reported costs above their estimates) "
					+ "and given back (reported costs below their estimates, held requests that never went on)")
			.baseUnit("units")
			.tag("policy", policy)
			.tag("tier", tier)
			.tag("route", routeId)
			.tag("direction", direction)
			.register(this.registry);
	}

	private Counter unreadable(String policy, String tier, String routeId, String reason) {
		return Counter.builder(UNREADABLE_COST)
			.description("Responses whose cost could not be read; their estimate stands")
			.tag("policy", policy)
			.tag("tier", tier)
			.tag("route", routeId)
			.tag("reason", reason)
			.register(this.registry);
	}

	/**
	 * The policy's count of requests in flight, its gauge registered with it.
	 */
	private AtomicLong inFlight(String policy) {
		AtomicLong inFlight = this.inFlightByPolicy.get(policy);
		return (inFlight != null) ? inFlight : this.inFlightByPolicy.computeIfAbsent(policy, (id) -> {
			AtomicLong count = new AtomicLong();
			Gauge.builder(IN_FLIGHT, count, AtomicLong::get)
				.description("Requests in flight on this node holding a slot of a concurrency limit")
				.tag("policy", id)
				.strongReference(true)
				.register(this.registry);
			return count;
		});
	}

	/**
	 * The meters of one route and tier, registered on its first settlement and kept.
	 */
	private final class RouteTierSettlements implements RouteTierListener {

		private final String policy;

		private final String tier;

		private final String routeId;

		private volatile Counter charged;

		private volatile Counter refunded;

		private volatile AtomicLong inFlight;

		RouteTierSettlements(String policy, String tier, String routeId) {
			this.policy = policy;
			this.tier = tier;
			this.routeId = routeId;
		}

		@Override
		public void onDecision(Outcome outcome, long decisionNanos) {
		}

		@Override
		public void onCharged(long units) {
			Counter charged = this.charged;
			if (charged == null) {
				charged = units(this.policy, this.tier, this.routeId, "charged");
				this.charged = charged;
			}
			charged.increment(units);
		}

		@Override
		public void onRefunded(long units) {
			Counter refunded = this.refunded;
			if (refunded == null) {
				refunded = units(this.policy, this.tier, this.routeId, "refunded");
				this.refunded = refunded;
			}
			refunded.increment(units);
		}

		@Override
		public void onUnreadableCost(String reason) {
			unreadable(this.policy, this.tier, this.routeId, reason).increment();
		}

		@Override
		public void onSlotTaken() {
			inFlight().incrementAndGet();
		}

		@Override
		public void onSlotReleased() {
			inFlight().decrementAndGet();
		}

		private AtomicLong inFlight() {
			AtomicLong inFlight = this.inFlight;
			if (inFlight == null) {
				inFlight = RateLimitSettlementMetrics.this.inFlight(this.policy);
				this.inFlight = inFlight;
			}
			return inFlight;
		}

	}

}
