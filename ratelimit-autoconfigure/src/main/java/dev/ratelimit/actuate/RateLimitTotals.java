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
			return new Totals(0, 0, 0, 0, 0);
		}
		return new Totals(adders[Outcome.ALLOWED.ordinal()].sum(), adders[Outcome.REJECTED.ordinal()].sum(),
				adders[Outcome.SHADOW_REJECTED.ordinal()].sum(), adders[Outcome.ERROR.ordinal()].sum(),
				adders[Outcome.MISSING_KEY.ordinal()].sum());
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
	 */
	public record Totals(long allowed, long rejected, long shadowRejected, long errors, long missingKey) {
	}

}
