package dev.ratelimit.testsupport;

import java.util.List;

import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The problems a context's failed start-up reported, each as one line.
 */
public final class StartUpProblems {

	private StartUpProblems() {
	}

	/**
	 * The problems of the {@link InvalidRateLimitConfigurationException} that stopped
	 * {@code context}, failing the test when none did.
	 */
	public static List<String> problems(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		Throwable failure = context.getStartupFailure();
		while (!(failure instanceof InvalidRateLimitConfigurationException) && failure.getCause() != null) {
			failure = failure.getCause();
		}
		assertThat(failure).isInstanceOf(InvalidRateLimitConfigurationException.class);
		return ((InvalidRateLimitConfigurationException) failure).getProblems()
			.stream()
			.map(ConfigurationProblem::describe)
			.toList();
	}

}
