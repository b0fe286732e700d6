package dev.ratelimit.policy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The policies one route names, to be judged together: parsed from what a filter's
 * arguments or a web route's properties say, each value one policy id or several
 * separated by commas (as a gateway shortcut separates its arguments), and checked, the
 * same wherever they are named: at least one, each once, each defined.
 */
public final class NamedPolicies {

	private NamedPolicies() {
	}

	/**
	 * The ids {@code values} name, in order: each value split at its commas, each id
	 * stripped of surrounding whitespace; an empty one kept, for {@link #problems} to
	 * report.
	 */
	public static List<String> ids(List<String> values) {
		List<String> ids = new ArrayList<>();
		for (String value : values) {
			if (value == null) {
				ids.add("");
				continue;
			}
			for (String id : value.split(",", -1)) {
				ids.add(id.strip());
			}
		}
		return ids;
	}

	/**
	 * What is wrong with naming {@code ids} at {@code where}: no id at all, an empty
	 * one, one named twice, one that no policy has (listing those that do).
	 * @param value what {@code where} says, as the problems show it
	 * @param policyIds the ids of the policies defined
	 */
	public static List<ConfigurationProblem> problems(String where, @Nullable Object value, List<String> ids,
			Set<String> policyIds) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		if (ids.isEmpty() || ids.contains("")) {
			problems.add(UnknownPolicy.problem(where, value, policyIds));
			return problems;
		}
		Set<String> seen = new HashSet<>();
		for (String id : ids) {
			if (!seen.add(id)) {
				problems.add(new ConfigurationProblem(where, value, "must name each policy once, but names '" + id
						+ "' twice: its bucket would be judged twice for one request"));
			}
			else if (!policyIds.contains(id)) {
				problems.add((ids.size() == 1) ? UnknownPolicy.problem(where, value, policyIds)
						: UnknownPolicy.problem(where, value, id, policyIds));
			}
		}
		return problems;
	}

	/**
	 * The policies {@code ids} name, in order.
	 * @param where who names them, as a problem names it
	 * @throws InvalidRateLimitConfigurationException when {@link #problems} finds any
	 */
	public static List<RateLimitPolicy> require(RateLimitPolicies policies, List<String> ids, String where) {
		List<ConfigurationProblem> problems = problems(where, ids.isEmpty() ? null : String.join(",", ids), ids,
				policies.byId().keySet());
		if (!problems.isEmpty()) {
			throw new InvalidRateLimitConfigurationException(problems);
		}
		List<RateLimitPolicy> named = new ArrayList<>(ids.size());
		for (String id : ids) {
			named.add(policies.policy(id));
		}
		return named;
	}

}
