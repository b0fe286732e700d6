package dev.ratelimit.metrics;

import dev.ratelimit.web.Outcome;
import dev.ratelimit.web.RateLimitListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Records the blocks penalty boxes start as {@code ratelimit.blocks}: a counter tagged
 * policy, tier, route and {@code step} (of {@code block-for}, counted from 1, so that
 * escalation shows). The requests refused while blocked are
 * {@code ratelimit.requests}' outcome {@code blocked}. A block starts only on a breach,
 * a rejected request, so its counter is looked up then, off the path of the requests
 * admitted.
 */
public final class RateLimitBlockMetrics implements RateLimitListener {

	/** Name of the counter of penalty blocks started. */
	public static final String BLOCKS = "ratelimit.blocks";

	private final MeterRegistry registry;

	public RateLimitBlockMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	/**
	 * Blocks are told to each route's bound listener; a decision is not this listener's to
	 * record.
	 */
	@Override
	public void onDecision(String policy, String tier, String routeId, String store, Outcome outcome,
			long decisionNanos) {
	}

	@Override
	public void onBlockStarted(String policy, String tier, String routeId, String store, int step) {
		Counter.builder(BLOCKS)
			.description("Penalty blocks started by breaches, by the step of block-for they serve")
			.tag("policy", policy)
			.tag("tier", tier)
			.tag("route", routeId)
			.tag("step", Integer.toString(step))
			.register(this.registry)
			.increment();
	}

}
