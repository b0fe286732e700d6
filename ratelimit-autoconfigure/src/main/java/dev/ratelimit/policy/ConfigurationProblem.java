package dev.ratelimit.policy;

import org.jspecify.annotations.Nullable;

/**
 * One thing wrong with the rate limit configuration.
 *
 * @param property the property path, as a user writes it
 * @param value the offending value, or {@code null} when the property is missing
 * @param rule what the value must be
 */
public record ConfigurationProblem(String property, @Nullable Object value, String rule) {

	/**
	 * The problem as one line: {@code <property>: was <value>, <rule>}.
	 */
	public String describe() {
		String was = (this.value != null) ? "was " + this.value : "was not set";
		return this.property + ": " + was + ", " + this.rule;
	}

}
