package dev.ratelimit.autoconfigure;

import java.util.List;
import java.util.Set;

import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.RateLimitPolicies;

import org.springframework.boot.context.properties.bind.Binder;

/**
 * What Spring Cloud Gateway adds to a live reload, when it is on the class path: its
 * {@code KeyResolver} beans, its routes checked against the new policies, and rebuilt.
 * Without the gateway the reloader has none, and names no class of the gateway.
 */
interface GatewayRoutesReload {

	/**
	 * The names of the {@code KeyResolver} beans a policy's key may name.
	 */
	Set<String> keyResolverNames();

	/**
	 * What would be wrong with the gateway's routes, as configured now, under
	 * {@code next}, including a policy whose store is not available.
	 * @param inForce the policies in force
	 * @param next the new policies, valid on their own
	 * @param binder the environment as it is now
	 */
	List<ConfigurationProblem> problems(RateLimitPolicies inForce, RateLimitPolicies next, Binder binder);

	/**
	 * What is wrong with the filters of the gateway's routes, as configured now, under
	 * the policies {@code policyIds}, asked when the new policies are invalid themselves,
	 * so that one rejection lists both.
	 * @param binder the environment as it is now
	 */
	List<ConfigurationProblem> filterProblems(Set<String> policyIds, Binder binder);

	/**
	 * Have the gateway rebuild its routes from the policies now in force.
	 * @param source the reloader
	 */
	void refreshRoutes(Object source);

}
