package dev.ratelimit.policy;

import java.util.Set;

/**
 * The responses whose requests take their cost, as {@code count-responses} lists them:
 * statuses ({@code 401}) and classes ({@code 4xx}, RFC 9110 section 15).
 *
 * @param statuses the statuses counted, each 100 to 599
 * @param classes the classes counted, by their first digit, 1 to 5
 */
public record CountedResponses(Set<Integer> statuses, Set<Integer> classes) {

	public CountedResponses {
		statuses = Set.copyOf(statuses);
		classes = Set.copyOf(classes);
		if (statuses.isEmpty() && classes.isEmpty()) {
			throw new IllegalArgumentException("count-responses lists no status");
		}
	}

	/**
	 * Whether a response of {@code status} is counted.
	 */
	public boolean matches(int status) {
		return this.statuses.contains(status) || this.classes.contains(status / 100);
	}

}
