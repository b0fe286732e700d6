package dev.ratelimit.support;

import org.jspecify.annotations.Nullable;

/**
 * How far apart two words are, for the suggestions a start-up error makes for a
 * misspelt key or value.
 */
public final class EditDistance {

	private EditDistance() {
	}

	/**
	 * Edits (insertions, deletions, substitutions and swaps of two neighbours) from
	 * {@code a} to {@code b}: the optimal string alignment distance, so that the
	 * common typing slip {@code sotre} is one edit from {@code store}.
	 */
	public static int between(String a, String b) {
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

	/**
	 * The candidate nearest {@code written} when it is near enough to be a slip for it:
	 * at most two edits away, or a third of the word's length for longer words.
	 * @return that candidate, the first of the nearest in {@code candidates}' order, or
	 * {@code null} when none is near
	 */
	public static @Nullable String nearest(String written, Iterable<String> candidates) {
		String nearest = null;
		int nearestDistance = Integer.MAX_VALUE;
		for (String candidate : candidates) {
			int distance = between(written, candidate);
			if (distance < nearestDistance) {
				nearest = candidate;
				nearestDistance = distance;
			}
		}
		return (nearestDistance <= Math.max(2, written.length() / 3)) ? nearest : null;
	}

}
