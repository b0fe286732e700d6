package dev.ratelimit.web;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The name and key values of the observation of a policy's decision. Declare a bean of
 * this type to replace {@link DefaultRateLimitDecisionObservationConvention}.
 */
public interface RateLimitDecisionObservationConvention
		extends ObservationConvention<RateLimitDecisionObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof RateLimitDecisionObservationContext;
	}

}
