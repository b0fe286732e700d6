package dev.ratelimit.web;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import org.jspecify.annotations.Nullable;

/**
 * What several policies must be for one route to judge them together ({@link RequestJudge}):
 * checked when the route is built and, for the routes of the configuration, at start-up
 * and on each live reload.
 * <ul>
 * <li>The limits one response describes, those of the tier of each policy a tier name
 * gives, have names of their own: headers and 429 bodies tell limits apart by name.</li>
 * <li>With {@code draft-06}, no two of them share a quota: {@code RateLimit-Limit}
 * tells which limit it reports by its quota, as within a tier.</li>
 * <li>A policy on store {@code hybrid}, whose nodes spend leases in their own memory and
 * so cannot give back what a decision took, is the last the route names, the only one
 * never asked to give back for a policy after it that refuses, and is not named with a
 * policy that shapes: a held request that never goes on, or finds no place to be held,
 * has every policy give back what it took.</li>
 * </ul>
 */
public final class PolicyCombination {

	private PolicyCombination() {
	}

	/**
	 * The problems of judging {@code policies} together, none for one policy.
	 * @param where the property that names them
	 * @param value what that property says, as the problem shows it
	 */
	public static List<ConfigurationProblem> problems(HeaderStyle style, List<RateLimitPolicy> policies, String where,
			@Nullable Object value) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		if (policies.size() < 2) {
			return problems;
		}
		storeProblems(policies, where, value, problems);
		Set<String> conflicts = new LinkedHashSet<>();
		for (String tierName : tierNames(policies)) {
			for (int a = 0; a < policies.size(); a++) {
				for (int b = a + 1; b < policies.size(); b++) {
					limitConflicts(style, policies.get(a), policies.get(b), tierName, conflicts);
				}
			}
		}
		for (String conflict : conflicts) {
			problems.add(new ConfigurationProblem(where, value, conflict));
		}
		return problems;
	}

	private static void storeProblems(List<RateLimitPolicy> policies, String where, @Nullable Object value,
			List<ConfigurationProblem> problems) {
		RateLimitPolicy shaping = null;
		for (RateLimitPolicy policy : policies) {
			if (shaping == null && shapes(policy)) {
				shaping = policy;
			}
		}
		for (int i = 0; i < policies.size(); i++) {
			RateLimitPolicy policy = policies.get(i);
			if (policy.store() != StoreType.HYBRID) {
				continue;
			}
			if (i < policies.size() - 1) {
				problems.add(new ConfigurationProblem(where, value, "must name policy '" + policy.id()
						+ "', on store hybrid, last: its nodes spend leases in their own memory and so cannot give "
						+ "back what a decision took, which a policy decided before another that refuses must"));
			}
			if (shaping != null && shaping != policy) {
				problems.add(new ConfigurationProblem(where, value, "must not name policy '" + policy.id()
						+ "', on store hybrid, with policy '" + shaping.id()
						+ "', which shapes: a held request that never goes on has every policy give back what it "
						+ "took, which the hybrid store's nodes cannot"));
			}
		}
	}

	private static boolean shapes(RateLimitPolicy policy) {
		for (Tier tier : policy.tiers().values()) {
			for (Limit limit : tier.limits()) {
				if (limit.shaping() != null) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * Every tier name a request may have that some policy lists; a name none lists gives
	 * each policy its default tier, whose name each lists.
	 */
	private static Set<String> tierNames(List<RateLimitPolicy> policies) {
		Set<String> names = new LinkedHashSet<>();
		for (RateLimitPolicy policy : policies) {
			names.add(policy.defaultTier().name());
			names.addAll(policy.tiers().keySet());
		}
		return names;
	}

	private static void limitConflicts(HeaderStyle style, RateLimitPolicy a, RateLimitPolicy b, String tierName,
			Set<String> conflicts) {
		Tier tierA = a.tiers().getOrDefault(tierName, a.defaultTier());
		Tier tierB = b.tiers().getOrDefault(tierName, b.defaultTier());
		for (int i = 0; i < tierA.limits().size(); i++) {
			for (int j = 0; j < tierB.limits().size(); j++) {
				String limitA = limitPath(a, tierA, i);
				String limitB = limitPath(b, tierB, j);
				String name = tierA.limitName(a.id(), i);
				if (name.equals(tierB.limitName(b.id(), j))) {
					conflicts.add("must name policies whose limits have names of their own: " + limitA + " and "
							+ limitB + " are both named '" + name + "', and one response describes both, its "
							+ "headers and 429 body telling limits apart by name; rename one");
				}
				Limit first = tierA.limits().get(i);
				Limit second = tierB.limits().get(j);
				if (style == HeaderStyle.DRAFT_06 && !first.countsInFlight() && !second.countsInFlight()
						&& first.quota() == second.quota()) {
					conflicts.add("must name policies whose limits differ in quota with ratelimit.headers=draft-06: "
							+ limitA + " and " + limitB + " both have a quota of " + first.quota()
							+ ", and one response's RateLimit-Policy lists both while RateLimit-Limit tells which "
							+ "it reports by its quota (draft-ietf-httpapi-ratelimit-headers-06 sections 3.1 and "
							+ "3.2); change one quota, or use ratelimit.headers=draft-11, whose fields name each "
							+ "limit");
				}
			}
		}
	}

	private static String limitPath(RateLimitPolicy policy, Tier tier, int index) {
		return "ratelimit.policies." + policy.id() + ".tiers." + tier.name() + "[" + index + "]";
	}

}
