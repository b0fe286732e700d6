package dev.ratelimit.policy;

import org.jspecify.annotations.Nullable;

/**
 * What a policy settles once the response is known: which responses count, and where
 * the upstream reports what a request cost.
 *
 * @param countResponses the responses whose requests take their cost
 * ({@code count-responses}); {@code null} when every admitted request takes it on
 * admission
 * @param costFromResponse where the response says what the request cost
 * ({@code cost-from-response}), the policy's cost being the estimate taken on
 * admission; {@code null} when the cost is known before forwarding
 * @param hideCostHeader whether the response header the cost is read from is kept from
 * the client ({@code hide-response-cost-header}); only with a
 * {@link ResponseCostSource.Header}
 */
public record AfterResponse(@Nullable CountedResponses countResponses, @Nullable ResponseCostSource costFromResponse,
		boolean hideCostHeader) {

	/**
	 * Nothing settled after the response: the cost is taken on admission.
	 */
	public static final AfterResponse NONE = new AfterResponse(null, null, false);

	/**
	 * Whether anything is settled after the response.
	 */
	public boolean settles() {
		return this.countResponses != null || this.costFromResponse != null;
	}

}
