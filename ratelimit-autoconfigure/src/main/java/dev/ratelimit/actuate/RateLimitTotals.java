package dev.ratelimit.actuate;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.LongAdder;

import dev.ratelimit.web.Outcome;
import dev.ratelimit.web.RateLimitListener;
import dev.ratelimit.web.RateLimitListener.RouteTierListener;

/**
 * Counts every decision per policy and outcome since start-up, for the
 * {@code ratelimits} endpoint. Once a policy has been seen, counting allocates
 * nothing and contends on nothing but striped adders.
 */
public final class RateLimitTotals implements RateLimitListener {

	private static final Outcome[] OUTCOMES = Outcome.values();

	private final ConcurrentMap<String, LongAdder[]> byPolicy = new ConcurrentHashMap<>();

	@Override
	public void onDecision(String policy, String tier, String routeId, String store, Outcome outcome,
			long decisionNanos) {
		adders(policy)[outcome.ordinal()].increment();
	}

	@Override
	public RouteTierListener forRouteTier(String policy, String tier, String routeId, String store) {
		LongAdder[] adders = adders(policy);
		return (outcome, decisionNanos) -> adders[outcome.ordinal()].increment();
	}

	/**
	 * The totals of a policy so far; all zero for a policy that has decided nothing.
	 */
	public Totals totals(String policy) {
		LongAdder[] adders = this.byPolicy.get(policy);
		if (adders == null) {
			return new Totals(0, 0, 0, 0, 0, 0, 0, 0);
		}
		return new Totals(sum(adders, Outcome.ALLOWED), sum(adders, Outcome.REJECTED),
				sum(adders, Outcome.SHADOW_REJECTED), sum(adders, Outcome.ERROR), sum(adders, Outcome.MISSING_KEY),
				sum(adders, Outcome.DELAYED), sum(adders, Outcome.SHADOW_DELAYED), sum(adders, Outcome.HOLDS_FULL));
	}

	private static long sum(LongAdder[] adders, Outcome outcome) {
		return adders[outcome.ordinal()].sum();
	}

	private LongAdder[] adders(String policy) {
		LongAdder[] adders = this.byPolicy.get(policy);
		return (adders != null) ? adders : this.byPolicy.computeIfAbsent(policy, (id) -> newAdders());
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
	 */
	public record Totals(long allowed, long rejected, long shadowRejected, long errors, long missingKey, long delayed,
			long shadowDelayed, long holdsFull) {
	}

}
