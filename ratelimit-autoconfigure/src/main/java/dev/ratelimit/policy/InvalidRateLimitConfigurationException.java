package dev.ratelimit.policy;

import java.util.List;

/**
 * Thrown at start-up when the rate limit configuration is invalid; lists every
 * problem found, not only the first.
 */
public class InvalidRateLimitConfigurationException extends RuntimeException {

	private final List<ConfigurationProblem> problems;

	public InvalidRateLimitConfigurationException(List<ConfigurationProblem> problems) {
		this(message(problems), problems);
	}

	/**
	 * @param message the problems as a failure words them itself, such as a value that
	 * does not bind
	 */
	public InvalidRateLimitConfigurationException(String message, List<ConfigurationProblem> problems) {
		super(message);
		this.problems = List.copyOf(problems);
	}

	/**
	 * Every problem found, in configuration order.
	 */
	public List<ConfigurationProblem> getProblems() {
		return this.problems;
	}

	private static String message(List<ConfigurationProblem> problems) {
		StringBuilder message = new StringBuilder("Invalid rate limit configuration:");
		for (ConfigurationProblem problem : problems) {
			message.append(System.lineSeparator()).append(" - ").append(problem.describe());
		}
		return message.toString();
	}

}
