package dev.ratelimit.policy;

import java.util.List;
import java.util.Set;

/**
 * What a gateway adds to a live reload, when there is one: its {@code KeyResolver}
 * beans, its routes, as configured now, checked against the new policies, and rebuilt.
 * Without the gateway a reload has none, and names no class of the gateway.
 */
public interface GatewayRoutesReload {

	/**
	 * The names of the {@code KeyResolver} beans a policy's key may name.
	 */
	Set<String> keyResolverNames();

	/**
	 * What would be wrong with the gateway's routes, as configured now, under
	 * {@code next}, including a policy whose store is not available.
	 * @param inForce the policies in force
	 * @param next the new policies, valid on their own
	 */
	List<ConfigurationProblem> problems(RateLimitPolicies inForce, RateLimitPolicies next);

	/**
	 * What is wrong with the filters of the gateway's routes, as configured now, under
	 * the policies {@code policyIds}, asked when the new policies are invalid themselves,
	 * so that one rejection lists both.
	 */
	List<ConfigurationProblem> filterProblems(Set<String> policyIds);

	/**
	 * Have the gateway rebuild its routes from the policies now in force.
	 * @param source the reloader
	 */
	void refreshRoutes(Object source);

}
