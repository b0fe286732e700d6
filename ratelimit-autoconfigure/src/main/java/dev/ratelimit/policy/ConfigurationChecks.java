package dev.ratelimit.policy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The rules every {@code ratelimit.*} property is checked by at start-up, where the
 * bean it configures is made, and the one way a check fails: an
 * {@link InvalidRateLimitConfigurationException} listing every problem. The policies'
 * own checks ({@link RateLimitPolicyFactory}) use the same rules and words.
 */
public final class ConfigurationChecks {

	public static final String POSITIVE = "must be a positive number";

	public static final String POSITIVE_DURATION = "must be a positive duration (for example 500ms, 1s, 1m, 1d)";

	private ConfigurationChecks() {
	}

	/**
	 * @throws InvalidRateLimitConfigurationException listing {@code problems}, unless
	 * there are none
	 */
	public static void requireNone(List<ConfigurationProblem> problems) {
		if (!problems.isEmpty()) {
			throw new InvalidRateLimitConfigurationException(problems);
		}
	}

	public static void positive(String property, long value, List<ConfigurationProblem> problems) {
		if (value <= 0) {
			problems.add(new ConfigurationProblem(property, value, POSITIVE));
		}
	}

	public static void positive(String property, @Nullable Duration value, List<ConfigurationProblem> problems) {
		if (value == null) {
			problems.add(new ConfigurationProblem(property, null, POSITIVE_DURATION));
		}
		else if (value.isZero() || value.isNegative()) {
			problems.add(new ConfigurationProblem(property, DurationFormat.asConfigured(value), POSITIVE_DURATION));
		}
	}

	public static long requirePositive(String property, long value) {
		List<ConfigurationProblem> problems = new ArrayList<>(1);
		positive(property, value, problems);
		requireNone(problems);
		return value;
	}

	public static Duration requirePositive(String property, @Nullable Duration value) {
		List<ConfigurationProblem> problems = new ArrayList<>(1);
		positive(property, value, problems);
		requireNone(problems);
		return value;
	}

	public static int requireNotNegative(String property, int value) {
		if (value < 0) {
			requireNone(List.of(new ConfigurationProblem(property, value, "must not be negative")));
		}
		return value;
	}

}
