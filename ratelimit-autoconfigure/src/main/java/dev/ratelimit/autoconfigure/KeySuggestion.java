package dev.ratelimit.autoconfigure;

import java.util.SortedSet;

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
		String nearest = null;
		int nearestDistance = Integer.MAX_VALUE;
		for (String sibling : siblings) {
			int distance = distance(written, sibling);
			if (distance < nearestDistance) {
				nearest = sibling;
				nearestDistance = distance;
			}
		}
		if (nearestDistance <= Math.max(2, written.length() / 3)) {
			return "; did you mean " + nearest + "?";
		}
		return "; the keys of " + parent + " are " + String.join(", ", siblings);
	}

	/**
	 * Edits (insertions, deletions, substitutions and swaps of two neighbours) from
	 * {@code a} to {@code b}: the optimal string alignment distance, so that the
	 * common typing slip {@code sotre} is one edit from {@code store}.
	 */
	private static int distance(String a, String b) {
		int[][] d = new int[a.length() + 1][b.length() + 1];
		for (int i = 0; i <= a.length(); i++) {
			d[i][0] = i;
		}
		for (int j = 0; j <= b.length(); j++) {
			d[0][j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			for (int j = 1; j <= b.length(); j++) {
				int substitution = (a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1;
				d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + substitution);
				if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
					d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
				}
			}
		}
		return d[a.length()][b.length()];
	}

}
