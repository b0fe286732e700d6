package dev.ratelimit.web;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import dev.ratelimit.policy.JsonPointer;

/**
 * How the path of the value a {@link JsonScanner} is at relates to each JSON Pointer
 * (RFC 6901), without keeping the path: per pointer, how many of its leading tokens the
 * path matches; per level a pointer reaches, the index of the current array element; and
 * the member name being read, only while some pointer could be naming it and only up to
 * the longest token's length. Its state is sized by the pointers, whatever the document.
 */
final class JsonPaths {

	private static final long NOT_AN_INDEX = -1;

	/**
	 * A token holding a lone surrogate is no string a JSON text can spell: it stands as
	 * a byte that is never in UTF-8, so no member name equals it.
	 */
	private static final byte[] NO_NAME = { (byte) 0xFF };

	/**
	 * Each pointer's tokens as UTF-8, to compare with member names as they arrive.
	 */
	private final byte[][][] names;

	/**
	 * Each pointer's tokens as array indexes (RFC 6901 section 4: digits without a
	 * leading zero; {@code -} names the element after the last, which never exists), or
	 * {@link #NOT_AN_INDEX}.
	 */
	private final long[][] indexes;

	/**
	 * Per pointer, the number of leading tokens the current path matches; at most the
	 * current depth and the pointer's length.
	 */
	private final int[] matched;

	/**
	 * The current element's index in the array open at each level up to the longest
	 * pointer's length (deeper levels matter to no pointer).
	 */
	private final long[] elements;

	private final byte[] name;

	private int nameLength;

	private boolean capturing;

	private boolean nameUnmatchable;

	private int highSurrogate;

	JsonPaths(List<JsonPointer> pointers) {
		int count = pointers.size();
		this.names = new byte[count][][];
		this.indexes = new long[count][];
		this.matched = new int[count];
		int longest = 0;
		int longestName = 0;
		for (int p = 0; p < count; p++) {
			List<String> tokens = pointers.get(p).tokens();
			this.names[p] = new byte[tokens.size()][];
			this.indexes[p] = new long[tokens.size()];
			for (int t = 0; t < tokens.size(); t++) {
				String token = tokens.get(t);
				boolean lone = token.codePoints()
					.anyMatch((c) -> c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE);
				this.names[p][t] = lone ? NO_NAME : token.getBytes(StandardCharsets.UTF_8);
				this.indexes[p][t] = index(token);
				longestName = Math.max(longestName, this.names[p][t].length);
			}
			longest = Math.max(longest, tokens.size());
		}
		this.elements = new long[longest];
		this.name = new byte[longestName];
	}

	private static long index(String token) {
		if (token.isEmpty() || token.length() > 18 || (token.length() > 1 && token.charAt(0) == '0')) {
			return NOT_AN_INDEX;
		}
		for (int i = 0; i < token.length(); i++) {
			if (token.charAt(i) < '0' || token.charAt(i) > '9') {
				return NOT_AN_INDEX;
			}
		}
		return Long.parseLong(token);
	}

	void reset() {
		Arrays.fill(this.matched, 0);
	}

	/**
	 * Whether the value starting at {@code depth} is the one {@code pointer} points to.
	 */
	boolean targets(int pointer, int depth) {
		return this.matched[pointer] == depth && this.names[pointer].length == depth;
	}

	/**
	 * The container open at {@code depth} closes: the path is its parent's again.
	 */
	void close(int depth) {
		for (int p = 0; p < this.matched.length; p++) {
			this.matched[p] = Math.min(this.matched[p], depth - 1);
		}
	}

	/**
	 * A member name of the object open at {@code depth} starts; it is kept only when a
	 * pointer matching the object's path has a token at this level.
	 */
	void startName(int depth) {
		this.capturing = false;
		for (int p = 0; p < this.matched.length && !this.capturing; p++) {
			this.capturing = isCandidate(p, depth);
		}
		this.nameLength = 0;
		this.nameUnmatchable = false;
		this.highSurrogate = 0;
	}

	/**
	 * Whether {@code pointer} matches the path of the container open at {@code depth}
	 * and has a token for its members.
	 */
	private boolean isCandidate(int pointer, int depth) {
		return this.matched[pointer] >= depth - 1 && this.names[pointer].length >= depth;
	}

	boolean capturing() {
		return this.capturing;
	}

	/**
	 * A byte of the name as UTF-8: a character written as is, or one of a short escape.
	 */
	void nameByte(int b) {
		if (this.highSurrogate != 0) {
			loneSurrogate();
		}
		append(b);
	}

	/**
	 * A UTF-16 code unit written as {@code \u005CuXXXX} (RFC 8259 section 7), paired
	 * when a high surrogate escape is followed by a low one; a lone surrogate is no
	 * character, and a name holding one equals no token.
	 */
	void nameCodeUnit(int unit) {
		if (this.highSurrogate != 0) {
			int high = this.highSurrogate;
			this.highSurrogate = 0;
			if (Character.isLowSurrogate((char) unit)) {
				appendCodePoint(Character.toCodePoint((char) high, (char) unit));
				return;
			}
			loneSurrogate();
		}
		if (Character.isHighSurrogate((char) unit)) {
			this.highSurrogate = unit;
		}
		else if (Character.isLowSurrogate((char) unit)) {
			loneSurrogate();
		}
		else {
			appendCodePoint(unit);
		}
	}

	private void loneSurrogate() {
		this.highSurrogate = 0;
		this.nameUnmatchable = true;
	}

	private void appendCodePoint(int codePoint) {
		if (codePoint < 0x80) {
			append(codePoint);
		}
		else if (codePoint < 0x800) {
			append(0xC0 | (codePoint >> 6));
			append(0x80 | (codePoint & 0x3F));
		}
		else if (codePoint < 0x10000) {
			append(0xE0 | (codePoint >> 12));
			append(0x80 | ((codePoint >> 6) & 0x3F));
			append(0x80 | (codePoint & 0x3F));
		}
		else {
			append(0xF0 | (codePoint >> 18));
			append(0x80 | ((codePoint >> 12) & 0x3F));
			append(0x80 | ((codePoint >> 6) & 0x3F));
			append(0x80 | (codePoint & 0x3F));
		}
	}

	private void append(int b) {
		if (this.nameLength < this.name.length) {
			this.name[this.nameLength++] = (byte) b;
		}
		else {
			this.nameUnmatchable = true;
		}
	}

	/**
	 * The name of a member of the object open at {@code depth} has ended: the pointers
	 * whose token at this level it equals match the member's path.
	 */
	void endName(int depth) {
		if (!this.capturing) {
			return;
		}
		if (this.highSurrogate != 0) {
			loneSurrogate();
		}
		for (int p = 0; p < this.matched.length; p++) {
			if (isCandidate(p, depth)) {
				this.matched[p] = (!this.nameUnmatchable && equalsName(this.names[p][depth - 1])) ? depth : depth - 1;
			}
		}
	}

	private boolean equalsName(byte[] token) {
		if (token.length != this.nameLength) {
			return false;
		}
		for (int i = 0; i < this.nameLength; i++) {
			if (token[i] != this.name[i]) {
				return false;
			}
		}
		return true;
	}

	/**
	 * The first element of the array open at {@code depth} starts.
	 */
	void firstElement(int depth) {
		if (depth <= this.elements.length) {
			this.elements[depth - 1] = 0;
			element(depth);
		}
	}

	/**
	 * The next element of the array open at {@code depth} starts.
	 */
	void nextElement(int depth) {
		if (depth <= this.elements.length) {
			this.elements[depth - 1]++;
			element(depth);
		}
	}

	private void element(int depth) {
		long index = this.elements[depth - 1];
		for (int p = 0; p < this.matched.length; p++) {
			if (isCandidate(p, depth)) {
				this.matched[p] = (this.indexes[p][depth - 1] == index) ? depth : depth - 1;
			}
		}
	}

}
