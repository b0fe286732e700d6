package dev.ratelimit.policy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.algorithm.Penalty;
import dev.ratelimit.policy.PolicySettings.PenaltySpec;
import org.jspecify.annotations.Nullable;

/**
 * Turns a policy's {@code penalty} into its {@link Penalty}, checking its steps, its
 * forgiveness and that its store keeps blocks for the whole fleet.
 * <p>
 * {@code forgive-after} counts from the end of a block, the time the client is free to
 * send again, so any positive duration means what it says whatever the steps are. It has
 * no default: it is how long a client's past counts, which depends on the steps (a day
 * is long after {@code [1m, 10m]} and short after {@code [1d, 7d]}), and without an end
 * every client's record would be kept for ever. So it is required with more than one
 * step, and refused with one, whose step every breach serves again anyway.
 */
final class PenaltyFactory {

	private PenaltyFactory() {
	}

	/**
	 * @param path the policy's property path
	 * @param store the policy's store
	 * @return the penalty; {@code null} when none is set or a problem was added
	 */
	static @Nullable Penalty penalty(String path, @Nullable PenaltySpec spec, @Nullable StoreType store,
			List<ConfigurationProblem> problems) {
		if (spec == null) {
			return null;
		}
		String penaltyPath = path + ".penalty";
		int problemsBefore = problems.size();
		List<Duration> steps = steps(penaltyPath + ".block-for", spec.blockFor(), problems);
		Duration forgiveAfter = spec.forgiveAfter();
		String forgivePath = penaltyPath + ".forgive-after";
		if (spec.blockFor().size() > 1 && forgiveAfter == null) {
			problems.add(new ConfigurationProblem(forgivePath, null,
					"must be set when block-for has more than one step: how long after its block ends a client "
							+ "without a breach is forgiven and starts again at the first step (for example 1d)"));
		}
		else if (spec.blockFor().size() == 1 && forgiveAfter != null) {
			problems.add(new ConfigurationProblem(forgivePath, DurationFormat.asConfigured(forgiveAfter),
					"must not be set with one block-for step, which every breach serves again: there is no "
							+ "escalation to forgive"));
		}
		else if (forgiveAfter != null) {
			ConfigurationChecks.positive(forgivePath, forgiveAfter, problems);
		}
		if (store == StoreType.HYBRID) {
			problems.add(new ConfigurationProblem(penaltyPath, "store hybrid",
					"must not be set for a policy on store hybrid, whose nodes each decide from leases in their "
							+ "own memory, so a block would hold on one node only; use store redis, which blocks "
							+ "a client on every node at once, or caffeine"));
		}
		if (problems.size() > problemsBefore) {
			return null;
		}
		try {
			return new Penalty(steps, forgiveAfter);
		}
		catch (IllegalArgumentException ex) {
			problems.add(new ConfigurationProblem(penaltyPath, steps, ex.getMessage()));
			return null;
		}
	}

	private static List<Duration> steps(String path, List<@Nullable Duration> blockFor,
			List<ConfigurationProblem> problems) {
		if (blockFor.isEmpty()) {
			problems.add(new ConfigurationProblem(path, "[]",
					"must list at least one duration: how long a breach blocks the client (10m), or each step of "
							+ "an escalation ([1m, 10m, 1h])"));
			return List.of();
		}
		List<Duration> steps = new ArrayList<>(blockFor.size());
		for (int i = 0; i < blockFor.size(); i++) {
			Duration step = blockFor.get(i);
			ConfigurationChecks.positive((blockFor.size() > 1) ? path + "[" + i + "]" : path, step, problems);
			steps.add(step);
		}
		return steps;
	}

}
