package dev.ratelimit.web;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.policy.AfterResponse;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.CountedResponses;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.JsonPointer;
import dev.ratelimit.policy.ResponseCostSource;
import dev.ratelimit.policy.Tier;
import org.jspecify.annotations.Nullable;

/**
 * What a route settles, under one tier, of a request it admitted, once the exchange
 * shows it: resolved when the route is built, so that a request only follows it. A
 * tier with nothing to settle has no plan, and its requests no settlement.
 *
 * @param policyId the policy's id, for the resolver and the logs
 * @param countResponses the responses whose requests take their cost, or {@code null}
 * when every admitted request took it on admission
 * @param costSource where the response says what the request cost, or {@code null}
 * @param hideCostHeader whether the cost header is kept from the client
 * @param resolver the application's resolver, for a {@link ResponseCostSource.Resolver}
 * @param pointers what is read of the body: the JSON pointer, or the resolver's; none
 * when the body is not read
 * @param inFlight whether a limit of the tier counts requests in flight, whose slot the
 * end of the exchange gives back
 */
record SettlementPlan(String policyId, @Nullable CountedResponses countResponses,
		@Nullable ResponseCostSource costSource, boolean hideCostHeader, @Nullable ResponseCostResolver resolver,
		List<JsonPointer> pointers, boolean inFlight) {

	/**
	 * The plan of a policy's tier, or {@code null} when nothing is settled after the
	 * response and no limit counts requests in flight.
	 * @throws InvalidRateLimitConfigurationException when the policy's cost comes from a
	 * resolver and there is none, or the resolver names a pointer that is not one
	 */
	static @Nullable SettlementPlan of(String policyId, AfterResponse afterResponse, Tier tier,
			@Nullable ResponseCostResolver resolver) {
		boolean inFlight = countsInFlight(tier);
		if (!afterResponse.settles() && !inFlight) {
			return null;
		}
		ResponseCostSource source = afterResponse.costFromResponse();
		List<JsonPointer> pointers = List.of();
		if (source instanceof ResponseCostSource.Json json) {
			pointers = List.of(json.pointer());
		}
		else if (source instanceof ResponseCostSource.Resolver) {
			if (resolver == null) {
				throw new InvalidRateLimitConfigurationException(List.of(new ConfigurationProblem(
						"ratelimit.policies." + policyId + ".cost-from-response", "resolver",
						"needs a ResponseCostResolver bean, and the application declares none")));
			}
			pointers = pointers(policyId, resolver);
		}
		return new SettlementPlan(policyId, afterResponse.countResponses(), source, afterResponse.hideCostHeader(),
				(source instanceof ResponseCostSource.Resolver) ? resolver : null, pointers, inFlight);
	}

	static boolean countsInFlight(Tier tier) {
		for (Limit limit : tier.limits()) {
			if (limit.countsInFlight()) {
				return true;
			}
		}
		return false;
	}

	private static List<JsonPointer> pointers(String policyId, ResponseCostResolver resolver) {
		List<JsonPointer> pointers = new ArrayList<>();
		for (String pointer : resolver.pointers()) {
			try {
				pointers.add(JsonPointer.parse(pointer));
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidRateLimitConfigurationException(List.of(new ConfigurationProblem(
						"ratelimit.policies." + policyId + ".cost-from-response", "resolver",
						"needs a ResponseCostResolver whose pointers() are JSON Pointers: " + ex.getMessage())));
			}
		}
		return List.copyOf(pointers);
	}

	/**
	 * Whether a response of {@code status} takes the request's cost: every response
	 * does, unless {@code count-responses} lists which.
	 */
	boolean counts(int status) {
		return this.countResponses == null || this.countResponses.matches(status);
	}

	/**
	 * Whether the body is read for the cost.
	 */
	boolean readsBody() {
		return !this.pointers.isEmpty();
	}

	/**
	 * Whether something is settled before the response is committed, so that its own
	 * headers tell it: a counted status charged, a cost read from the headers.
	 */
	boolean settlesOnCommit() {
		if (readsBody()) {
			return false;
		}
		return this.countResponses != null || this.costSource != null;
	}

	/**
	 * Whether the cost was taken on admission, for the settlement to replace: a
	 * counting policy only checked, and takes it once the status is known.
	 */
	boolean takesOnAdmission() {
		return this.countResponses == null;
	}

}
