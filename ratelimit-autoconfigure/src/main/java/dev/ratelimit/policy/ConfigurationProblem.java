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
	 * A value as a problem shows text a user wrote: in single quotes, so that blanks and
	 * an empty value are seen.
	 */
	public static @Nullable String quoted(@Nullable String value) {
		return (value != null) ? "'" + value + "'" : null;
	}

	/**
	 * The problem as one line: {@code <property>: was <value>, <rule>}.
	 */
	public String describe() {
		String was = (this.value != null) ? "was " + this.value : "was not set";
		return this.property + ": " + was + ", " + this.rule;
	}

}
