package dev.ratelimit.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.DurationFormat;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import org.jspecify.annotations.Nullable;

/**
 * The rules every {@code ratelimit.*} property is checked by at start-up, where the
 * bean it configures is made, and the one way a check fails: an
 * {@link InvalidRateLimitConfigurationException} listing every problem, which
 * {@link InvalidRateLimitConfigurationFailureAnalyzer} reports. The policies' own
 * checks ({@link RateLimitPolicyFactory}) use the same rules and words.
 */
final class ConfigurationChecks {

	static final String POSITIVE = "must be a positive number";

	static final String POSITIVE_DURATION = "must be a positive duration (for example 500ms, 1s, 1m, 1d)";

	private ConfigurationChecks() {
	}

	/**
	 * @throws InvalidRateLimitConfigurationException listing {@code problems}, unless
	 * there are none
	 */
	static void requireNone(List<ConfigurationProblem> problems) {
		if (!problems.isEmpty()) {
			throw new InvalidRateLimitConfigurationException(problems);
		}
	}

	static void positive(String property, long value, List<ConfigurationProblem> problems) {
		if (value <= 0) {
			problems.add(new ConfigurationProblem(property, value, POSITIVE));
		}
	}

	static void positive(String property, @Nullable Duration value, List<ConfigurationProblem> problems) {
		if (value == null) {
			problems.add(new ConfigurationProblem(property, null, POSITIVE_DURATION));
		}
		else if (value.isZero() || value.isNegative()) {
			problems.add(new ConfigurationProblem(property, DurationFormat.asConfigured(value), POSITIVE_DURATION));
		}
	}

	static long requirePositive(String property, long value) {
		List<ConfigurationProblem> problems = new ArrayList<>(1);
		positive(property, value, problems);
		requireNone(problems);
		return value;
	}

	static Duration requirePositive(String property, @Nullable Duration value) {
		List<ConfigurationProblem> problems = new ArrayList<>(1);
		positive(property, value, problems);
		requireNone(problems);
		return value;
	}

	static int requireNotNegative(String property, int value) {
		if (value < 0) {
			requireNone(List.of(new ConfigurationProblem(property, value, "must not be negative")));
		}
		return value;
	}

	/**
	 * {@code ratelimit.problem.type}, checked here too for applications that define
	 * their own policies, whose start-up skips the policy factory's checks.
	 */
	static URI problemType(RateLimitProperties properties) {
		List<ConfigurationProblem> problems = new ArrayList<>(1);
		URI type = RateLimitPolicyFactory.problemType(properties.getProblem().getType(), problems);
		requireNone(problems);
		// Not null: a type that is not an absolute URI is a problem.
		return Objects.requireNonNull(type);
	}

}
