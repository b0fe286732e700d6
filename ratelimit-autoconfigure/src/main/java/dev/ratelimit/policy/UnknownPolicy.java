package dev.ratelimit.policy;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

/**
 * The one problem of a route, filter or bean naming a policy that
 * {@code ratelimit.policies} does not define, worded the same wherever it is found.
 */
public final class UnknownPolicy {

	private UnknownPolicy() {
	}

	/**
	 * The policy named at {@code where}.
	 * @throws InvalidRateLimitConfigurationException when there is no such policy
	 */
	public static RateLimitPolicy require(RateLimitPolicies policies, @Nullable String policyId, String where) {
		RateLimitPolicy policy = (policyId != null) ? policies.policy(policyId) : null;
		if (policy == null) {
			throw new InvalidRateLimitConfigurationException(
					List.of(problem(where, policyId, policies.byId().keySet())));
		}
		return policy;
	}

	/**
	 * The problem of {@code where} naming none of {@code policyIds}.
	 * @param value what {@code where} says, as the problem shows it
	 */
	public static ConfigurationProblem problem(String where, @Nullable Object value, Set<String> policyIds) {
		return new ConfigurationProblem(where, value, "must name a policy defined under ratelimit.policies (defined: "
				+ (policyIds.isEmpty() ? "none" : new TreeSet<>(policyIds)) + ")");
	}

	/**
	 * The problem of {@code where} naming, among several policies, {@code unknown}, which
	 * is none of {@code policyIds}.
	 * @param value what {@code where} says, as the problem shows it
	 */
	public static ConfigurationProblem problem(String where, @Nullable Object value, String unknown,
			Set<String> policyIds) {
		return new ConfigurationProblem(where, value, "must name policies defined under ratelimit.policies, but '"
				+ unknown + "' is none of them (defined: " + (policyIds.isEmpty() ? "none" : new TreeSet<>(policyIds))
				+ ")");
	}

}
