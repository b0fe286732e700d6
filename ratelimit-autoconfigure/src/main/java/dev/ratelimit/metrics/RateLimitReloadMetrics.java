package dev.ratelimit.metrics;

import dev.ratelimit.policy.PolicyReloads;
import dev.ratelimit.policy.PolicyReloads.Outcome;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds the {@code ratelimit.reloads} counter: live reloads of the rate limit settings
 * since start-up, tagged {@code outcome} {@code accepted} or {@code rejected}. A
 * rejected reload still answers {@code POST /actuator/refresh} with 200, so alert on
 * {@code outcome=rejected} rising.
 */
public final class RateLimitReloadMetrics implements MeterBinder {

	/** Name of the counter of reloads. */
	public static final String RELOADS = "ratelimit.reloads";

	private final PolicyReloads reloads;

	/**
	 * @param reloads the outcome of the reloads so far
	 */
	public RateLimitReloadMetrics(PolicyReloads reloads) {
		this.reloads = reloads;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (Outcome outcome : Outcome.values()) {
			FunctionCounter.builder(RELOADS, this.reloads, (reloads) -> reloads.count(outcome))
				.description("Live reloads of the rate limit settings, by outcome")
				.tag("outcome", outcome.value())
				.register(registry);
		}
	}

}
