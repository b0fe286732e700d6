package dev.ratelimit.autoconfigure;

import java.util.SortedSet;

import dev.ratelimit.support.EditDistance;

/**
 * The valid key a misspelt {@code ratelimit.*} key was likely meant to be, for
 * {@link RateLimitConfigurationBinding}'s report of a key no property binds.
 */
final class KeySuggestion {

	private KeySuggestion() {
	}

	/**
	 * The sibling nearest {@code written}, or the siblings when none is near.
	 * @param written the key's last element, as written (dashed)
	 * @param parent the key's parent
	 * @param siblings the valid keys under {@code parent}
	 * @return the suggestion as it follows the problem's rule, or {@code ""} when
	 * {@code parent} has no known keys
	 */
	static String of(String written, String parent, SortedSet<String> siblings) {
		if (siblings.isEmpty()) {
			return "";
		}
		String nearest = EditDistance.nearest(written, siblings);
		if (nearest != null) {
			return "; did you mean " + nearest + "?";
		}
		return "; the keys of " + parent + " are " + String.join(", ", siblings);
	}

}
