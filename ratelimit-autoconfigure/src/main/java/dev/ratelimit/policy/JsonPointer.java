package dev.ratelimit.policy;

import java.util.ArrayList;
import java.util.List;

/**
 * A JSON Pointer (RFC 6901): the reference tokens that lead from a document's root to
 * one of its values.
 *
 * @param text the pointer as written
 * @param tokens its reference tokens, unescaped; empty for the whole document
 */
public record JsonPointer(String text, List<String> tokens) {

	public JsonPointer {
		tokens = List.copyOf(tokens);
	}

	/**
	 * Parse a pointer: empty, or {@code /} followed by tokens separated by {@code /}, in
	 * which {@code ~1} stands for {@code /} and {@code ~0} for {@code ~} (section 3), so
	 * unescaped in that order (section 4).
	 * @throws IllegalArgumentException naming what is wrong: no leading {@code /}, or a
	 * {@code ~} not followed by {@code 0} or {@code 1}
	 */
	public static JsonPointer parse(String text) {
		if (text.isEmpty()) {
			return new JsonPointer(text, List.of());
		}
		if (text.charAt(0) != '/') {
			throw new IllegalArgumentException(
					"JSON pointer '" + text + "' does not start with '/' (RFC 6901 section 3)");
		}
		List<String> tokens = new ArrayList<>();
		for (String token : text.substring(1).split("/", -1)) {
			for (int i = token.indexOf('~'); i >= 0; i = token.indexOf('~', i + 1)) {
				if (i + 1 >= token.length() || (token.charAt(i + 1) != '0' && token.charAt(i + 1) != '1')) {
					throw new IllegalArgumentException("JSON pointer '" + text
							+ "' has a '~' not followed by '0' or '1' (RFC 6901 section 3)");
				}
			}
			tokens.add(token.replace("~1", "/").replace("~0", "~"));
		}
		return new JsonPointer(text, tokens);
	}

	@Override
	public String toString() {
		return this.text;
	}

}
