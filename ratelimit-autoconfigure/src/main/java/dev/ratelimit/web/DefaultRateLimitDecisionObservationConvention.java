package dev.ratelimit.web;

import dev.ratelimit.web.RateLimitObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

/**
 * Names the observation of a policy's decision {@code ratelimit.policy.decisions}, the
 * span {@code ratelimit <policy>}, with the low-cardinality key values {@code policy},
 * {@code tier}, {@code store} and {@code outcome} (the {@link Outcome}'s tag value, as
 * {@code ratelimit.requests} tags it; {@code unknown} until the store has answered), and
 * no high-cardinality one: the client's key is never recorded.
 */
public class DefaultRateLimitDecisionObservationConvention implements RateLimitDecisionObservationConvention {

	/**
	 * The observation's name, and so the name of the timer Micrometer's meter handler
	 * records it as. Not {@code ratelimit.decision}, the timer of the store's verdicts
	 * tagged by store alone, which a second meter of that name but other tags would
	 * break in Prometheus.
	 */
	public static final String NAME = "ratelimit.policy.decisions";

	private static final KeyValue OUTCOME_UNKNOWN = LowCardinalityKeyNames.OUTCOME.withValue("unknown");

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(RateLimitDecisionObservationContext context) {
		return "ratelimit " + context.getPolicy();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(RateLimitDecisionObservationContext context) {
		Outcome outcome = context.getOutcome();
		return KeyValues.of(LowCardinalityKeyNames.POLICY.withValue(context.getPolicy()),
				LowCardinalityKeyNames.TIER.withValue(context.getTier()),
				LowCardinalityKeyNames.STORE.withValue(context.getStore()),
				(outcome != null) ? LowCardinalityKeyNames.OUTCOME.withValue(outcome.tagValue()) : OUTCOME_UNKNOWN);
	}

}
