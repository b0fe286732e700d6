package dev.ratelimit.autoconfigure;

import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;

import org.springframework.aot.AotDetector;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns an invalid rate limit configuration into a start-up report that lists every
 * problem, instead of a stack trace.
 */
class InvalidRateLimitConfigurationFailureAnalyzer
		extends AbstractFailureAnalyzer<InvalidRateLimitConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidRateLimitConfigurationException cause) {
		StringBuilder description = new StringBuilder("The rate limit configuration is invalid:")
			.append(System.lineSeparator());
		for (ConfigurationProblem problem : cause.getProblems()) {
			description.append(System.lineSeparator()).append("    ").append(problem.describe());
		}
		String action = "Correct the properties listed above in your application's configuration. "
				+ "Every ratelimit.* key, its default and its meaning are in the README's configuration reference.";
		if (cause.getProblems().stream().anyMatch(RateLimitConfigurationBinding::isUnknownKey)) {
			action += " To let keys the starter does not know pass, set "
					+ RateLimitConfigurationBinding.IGNORE_UNKNOWN_KEYS + "=true.";
		}
		if (AotDetector.useGeneratedArtifacts() && cause.getProblems().stream().anyMatch(
				(problem) -> problem.property().endsWith(".store") || problem.property().endsWith("(or ratelimit.store)"))) {
			// The conditions on ratelimit.store were evaluated when the application was
			// processed; a store set at run time, by a property or a profile, is not there.
			action += " With Spring AOT the stores are those configured when the application was AOT-processed: "
					+ "set ratelimit.store (or the profile that sets it) for the build's process-aot, or start "
					+ "without -Dspring.aot.enabled=true.";
		}
		return new FailureAnalysis(description.toString(), action, cause);
	}

}
