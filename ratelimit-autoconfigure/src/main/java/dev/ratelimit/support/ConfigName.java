package dev.ratelimit.support;

import java.util.Locale;

/**
 * An enum whose constants are written in configuration as their names in lower case,
 * words joined by hyphens ({@code TOKEN_BUCKET} is {@code token-bucket}): the form
 * Spring Boot's relaxed binding reads them in, so that the name printed back (in a
 * start-up error, a health detail, the actuator) is always the one that binds, and no
 * constant carries a copy of its own name that could drift from it.
 */
public interface ConfigName {

	/**
	 * The constant's name.
	 */
	String name();

	/**
	 * The name as configuration writes it.
	 */
	default String configName() {
		return name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/**
	 * The names of {@code choices} as a rule lists them: {@code a, b or c}.
	 */
	static String oneOf(ConfigName... choices) {
		StringBuilder names = new StringBuilder();
		for (int i = 0; i < choices.length; i++) {
			if (i > 0) {
				names.append((i == choices.length - 1) ? " or " : ", ");
			}
			names.append(choices[i].configName());
		}
		return names.toString();
	}

}
