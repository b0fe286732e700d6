package dev.ratelimit.actuate;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.LongAdder;

import dev.ratelimit.web.Outcome;
import dev.ratelimit.web.RateLimitListener;
import dev.ratelimit.web.RateLimitListener.RouteTierListener;

/**
 * Counts every decision per policy and outcome since start-up, and what settling
 * exchanges after their responses changed (units charged and given back, costs that
 * could not be read, slots in flight on this node) and the penalty blocks breaches
 * started, for the {@code ratelimits}
 * endpoint. Once a policy has been seen, counting allocates nothing and contends on
 * nothing but striped adders.
 */
public final class RateLimitTotals implements RateLimitListener {

	private static final Outcome[] OUTCOMES = Outcome.values();

	private final ConcurrentMap<String, LongAdder[]> byPolicy = new ConcurrentHashMap<>();

	private final ConcurrentMap<String, Settled> settledByPolicy = new ConcurrentHashMap<>();

	@Override
	public void onDecision(String policy, String tier, String routeId, String store, Outcome outcome,
			long decisionNanos) {
		adders(policy)[outcome.ordinal()].increment();
	}

	@Override
	public RouteTierListener forRouteTier(String policy, String tier, String routeId, String store) {
		return new RouteTierTotals(adders(policy), settled(policy));
	}

	@Override
	public void onCharged(String policy, String tier, String routeId, String store, long units) {
		settled(policy).charged.add(units);
	}

	@Override
	public void onRefunded(String policy, String tier, String routeId, String store, long units) {
		settled(policy).refunded.add(units);
	}

	@Override
	public void onUnreadableCost(String policy, String tier, String routeId, String store, String reason) {
		settled(policy).unreadable.increment();
	}

	@Override
	public void onSlotTaken(String policy, String tier, String routeId, String store) {
		settled(policy).inFlight.increment();
	}

	@Override
	public void onSlotReleased(String policy, String tier, String routeId, String store) {
		settled(policy).inFlight.decrement();
	}

	@Override
	public void onBlockStarted(String policy, String tier, String routeId, String store, int step) {
		settled(policy).blocks.increment();
	}

	/**
	 * The totals of a policy so far; all zero for a policy that has decided nothing.
	 */
	public Totals totals(String policy) {
		LongAdder[] adders = this.byPolicy.get(policy);
		Settled settled = this.settledByPolicy.get(policy);
		if (adders == null) {
			return new Totals(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
		}
		return new Totals(sum(adders, Outcome.ALLOWED), sum(adders, Outcome.REJECTED),
				sum(adders, Outcome.SHADOW_REJECTED), sum(adders, Outcome.ERROR), sum(adders, Outcome.MISSING_KEY),
				sum(adders, Outcome.DELAYED), sum(adders, Outcome.SHADOW_DELAYED), sum(adders, Outcome.HOLDS_FULL),
				(settled != null) ? settled.charged.sum() : 0, (settled != null) ? settled.refunded.sum() : 0,
				(settled != null) ? settled.unreadable.sum() : 0, (settled != null) ? settled.inFlight.sum() : 0,
				sum(adders, Outcome.BLOCKED), (settled != null) ? settled.blocks.sum() : 0,
				sum(adders, Outcome.EXEMPT));
	}

	/**
	 * The requests of {@code policy} in flight on this node, holding a slot of an
	 * in-flight limit.
	 */
	public long inFlight(String policy) {
		Settled settled = this.settledByPolicy.get(policy);
		return (settled != null) ? settled.inFlight.sum() : 0;
	}

	private static long sum(LongAdder[] adders, Outcome outcome) {
		return adders[outcome.ordinal()].sum();
	}

	private LongAdder[] adders(String policy) {
		LongAdder[] adders = this.byPolicy.get(policy);
		return (adders != null) ? adders : this.byPolicy.computeIfAbsent(policy, (id) -> newAdders());
	}

	private Settled settled(String policy) {
		Settled settled = this.settledByPolicy.get(policy);
		return (settled != null) ? settled : this.settledByPolicy.computeIfAbsent(policy, (id) -> new Settled());
	}

	private static LongAdder[] newAdders() {
		LongAdder[] adders = new LongAdder[OUTCOMES.length];
		for (int i = 0; i < adders.length; i++) {
			adders[i] = new LongAdder();
		}
		return adders;
	}

	/**
	 * A policy's decisions since start-up, by outcome.
	 *
	 * @param allowed requests let through within their quota
	 * @param rejected requests answered with 429
	 * @param shadowRejected requests over the quota of a shadow policy, let through
	 * @param errors requests the store's failure mode decided
	 * @param missingKey requests rejected for having no key
	 * @param delayed requests a shaping limit held, then forwarded (or given back, should
	 * their client have gone away first); not counted in {@code allowed}
	 * @param shadowDelayed requests a shaping limit of a shadow policy would have held,
	 * forwarded at once
	 * @param holdsFull requests a shaping limit would have held, answered with 503
	 * because this node held as many as it may
	 * @param charged units taken after responses: counted responses, reported costs above
	 * their estimates
	 * @param refunded units given back: reported costs below their estimates, held
	 * requests that never went on
	 * @param unreadableCosts responses whose cost could not be read, their estimates
	 * standing
	 * @param inFlight requests holding a slot of an in-flight limit on this node now
	 * @param blocked requests answered with 429 at once because a penalty block of their
	 * client was in force; not counted in {@code rejected}
	 * @param blocks penalty blocks that breaches started
	 * @param exempt requests of exempt clients, forwarded uncounted
	 */
	public record Totals(long allowed, long rejected, long shadowRejected, long errors, long missingKey, long delayed,
			long shadowDelayed, long holdsFull, long charged, long refunded, long unreadableCosts, long inFlight,
			long blocked, long blocks, long exempt) {

		/**
		 * The totals of a policy that exempted no client.
		 */
		public Totals(long allowed, long rejected, long shadowRejected, long errors, long missingKey, long delayed,
				long shadowDelayed, long holdsFull, long charged, long refunded, long unreadableCosts, long inFlight,
				long blocked, long blocks) {
			this(allowed, rejected, shadowRejected, errors, missingKey, delayed, shadowDelayed, holdsFull, charged,
					refunded, unreadableCosts, inFlight, blocked, blocks, 0);
		}

		/**
		 * The totals of a policy that blocked and exempted no client.
		 */
		public Totals(long allowed, long rejected, long shadowRejected, long errors, long missingKey, long delayed,
				long shadowDelayed, long holdsFull, long charged, long refunded, long unreadableCosts,
				long inFlight) {
			this(allowed, rejected, shadowRejected, errors, missingKey, delayed, shadowDelayed, holdsFull, charged,
					refunded, unreadableCosts, inFlight, 0, 0);
		}

	}

	/**
	 * What settlements changed for one policy, and the penalty blocks its breaches
	 * started.
	 */
	private static final class Settled {

		final LongAdder charged = new LongAdder();

		final LongAdder refunded = new LongAdder();

		final LongAdder unreadable = new LongAdder();

		final LongAdder inFlight = new LongAdder();

		final LongAdder blocks = new LongAdder();

	}

	/**
	 * The totals one route and tier adds to, found once.
	 */
	private record RouteTierTotals(LongAdder[] decisions, Settled settled) implements RouteTierListener {

		@Override
		public void onDecision(Outcome outcome, long decisionNanos) {
			this.decisions[outcome.ordinal()].increment();
		}

		@Override
		public void onCharged(long units) {
			this.settled.charged.add(units);
		}

		@Override
		public void onRefunded(long units) {
			this.settled.refunded.add(units);
		}

		@Override
		public void onUnreadableCost(String reason) {
			this.settled.unreadable.increment();
		}

		@Override
		public void onSlotTaken() {
			this.settled.inFlight.increment();
		}

		@Override
		public void onSlotReleased() {
			this.settled.inFlight.decrement();
		}

		@Override
		public void onBlockStarted(int step) {
			this.settled.blocks.increment();
		}

	}

}
