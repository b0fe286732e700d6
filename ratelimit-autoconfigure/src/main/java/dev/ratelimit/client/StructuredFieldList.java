package dev.ratelimit.client;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses a Structured Field List of Items (RFC 9651 sections 3.1 and 4.2.1), the type of
 * both draft-11 fields, and a single Item (section 4.2.3), the type of draft-06's
 * {@code RateLimit-Limit} and {@code RateLimit-Remaining}. Every rule of section 4.2 that
 * says "fail parsing" throws {@link Malformed}, and the caller then ignores the whole
 * field, as section 4.2 requires. Inner lists fail too: neither draft allows one in these
 * fields.
 * <p>
 * Bare items parse to {@link Long} (Integer), {@link BigDecimal} (Decimal),
 * {@link String} (String), {@link Token}, {@code byte[]} (Byte Sequence, as its base64
 * text is not needed here: a {@code String} prefixed {@code :}), {@link Boolean}, and
 * the Date and Display String of RFC 9651 as {@link Other}: parameters a client may
 * meet as comments but never reads.
 */
final class StructuredFieldList {

	private final String input;

	private int position;

	private StructuredFieldList(String input) {
		this.input = input;
	}

	/**
	 * Parse the lines of one field as a List: lines are combined into one value first,
	 * joined by commas (RFC 9651 section 4.2).
	 * @throws Malformed when the lines are not a List of Items
	 */
	static List<Member> parseList(List<String> fieldLines) {
		StructuredFieldList parser = new StructuredFieldList(String.join(",", fieldLines));
		parser.discardSpaces();
		List<Member> members = parser.list();
		parser.discardSpaces();
		if (!parser.atEnd()) {
			throw parser.fail("characters after the list");
		}
		return members;
	}

	/**
	 * Parse the one line of a field as an Item (RFC 9651 section 4.2).
	 * @throws Malformed when the field has several lines or is not an Item
	 */
	static Member parseItem(List<String> fieldLines) {
		if (fieldLines.size() != 1) {
			throw new Malformed("the field occurs " + fieldLines.size() + " times");
		}
		StructuredFieldList parser = new StructuredFieldList(fieldLines.get(0));
		parser.discardSpaces();
		Member item = parser.item();
		parser.discardSpaces();
		if (!parser.atEnd()) {
			throw parser.fail("characters after the item");
		}
		return item;
	}

	// RFC 9651 section 4.2.1
	private List<Member> list() {
		List<Member> members = new ArrayList<>();
		while (!atEnd()) {
			members.add(item());
			discardOptionalWhitespace();
			if (atEnd()) {
				return members;
			}
			if (consume() != ',') {
				throw fail("expected ',' between members");
			}
			discardOptionalWhitespace();
			if (atEnd()) {
				throw fail("a comma ends the list");
			}
		}
		return members;
	}

	// RFC 9651 section 4.2.3
	private Member item() {
		Object bareItem = bareItem();
		return new Member(bareItem, parameters());
	}

	// RFC 9651 section 4.2.3.1
	private Object bareItem() {
		if (atEnd()) {
			throw fail("expected an item");
		}
		char c = peek();
		if (c == '-' || isDigit(c)) {
			return number();
		}
		if (c == '"') {
			return string();
		}
		if (isAlpha(c) || c == '*') {
			return token();
		}
		if (c == ':') {
			return byteSequence();
		}
		if (c == '?') {
			return bool();
		}
		if (c == '@') {
			consume();
			if (!(number() instanceof Long)) {
				throw fail("a date is an integer");
			}
			return Other.DATE;
		}
		if (c == '%') {
			return displayString();
		}
		throw fail("no item starts with '" + c + "'");
	}

	// RFC 9651 section 4.2.3.2
	private Map<String, Object> parameters() {
		Map<String, Object> parameters = new LinkedHashMap<>();
		while (!atEnd() && peek() == ';') {
			consume();
			discardSpaces();
			String key = key();
			Object value = Boolean.TRUE;
			if (!atEnd() && peek() == '=') {
				consume();
				value = bareItem();
			}
			parameters.put(key, value);
		}
		return parameters;
	}

	// RFC 9651 section 4.2.3.3
	private String key() {
		if (atEnd() || !(isLcAlpha(peek()) || peek() == '*')) {
			throw fail("a key starts with a lowercase letter or '*'");
		}
		int start = this.position;
		while (!atEnd()) {
			char c = peek();
			if (!(isLcAlpha(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c == '*')) {
				break;
			}
			this.position++;
		}
		return this.input.substring(start, this.position);
	}

	// RFC 9651 section 4.2.4
	private Object number() {
		boolean negative = false;
		if (peek() == '-') {
			consume();
			negative = true;
		}
		if (atEnd() || !isDigit(peek())) {
			throw fail("a number starts with a digit");
		}
		int start = this.position;
		boolean decimal = false;
		while (!atEnd()) {
			char c = peek();
			if (isDigit(c)) {
				this.position++;
			}
			else if (!decimal && c == '.') {
				if (this.position - start > 12) {
					throw fail("a decimal has more than 12 integer digits");
				}
				this.position++;
				decimal = true;
			}
			else {
				break;
			}
			int length = this.position - start;
			if (!decimal && length > 15) {
				throw fail("an integer has more than 15 digits");
			}
			if (decimal && length > 16) {
				throw fail("a decimal has more than 16 characters");
			}
		}
		String number = this.input.substring(start, this.position);
		if (!decimal) {
			long value = Long.parseLong(number);
			return negative ? -value : value;
		}
		int fraction = number.length() - number.indexOf('.') - 1;
		if (fraction == 0 || fraction > 3) {
			throw fail("a decimal has 1 to 3 fractional digits");
		}
		BigDecimal value = new BigDecimal(number);
		return negative ? value.negate() : value;
	}

	// RFC 9651 section 4.2.5
	private String string() {
		consume();
		StringBuilder string = new StringBuilder();
		while (!atEnd()) {
			char c = consume();
			if (c == '\\') {
				if (atEnd()) {
					throw fail("a string ends with '\\'");
				}
				char next = consume();
				if (next != '"' && next != '\\') {
					throw fail("'\\' escapes only '\"' or '\\'");
				}
				string.append(next);
			}
			else if (c == '"') {
				return string.toString();
			}
			else if (c < 0x20 || c > 0x7E) {
				throw fail("a string holds a character outside printable ASCII");
			}
			else {
				string.append(c);
			}
		}
		throw fail("unterminated string");
	}

	// RFC 9651 section 4.2.6
	private Token token() {
		int start = this.position;
		while (!atEnd() && (isTchar(peek()) || peek() == ':' || peek() == '/')) {
			this.position++;
		}
		return new Token(this.input.substring(start, this.position));
	}

	// RFC 9651 section 4.2.7
	private String byteSequence() {
		consume();
		int end = this.input.indexOf(':', this.position);
		if (end < 0) {
			throw fail("unterminated byte sequence");
		}
		for (int i = this.position; i < end; i++) {
			char c = this.input.charAt(i);
			if (!(isAlpha(c) || isDigit(c) || c == '+' || c == '/' || c == '=')) {
				throw fail("a byte sequence holds a character outside base64");
			}
		}
		String text = this.input.substring(this.position - 1, end);
		this.position = end + 1;
		return text;
	}

	// RFC 9651 section 4.2.8
	private Boolean bool() {
		consume();
		if (!atEnd() && (peek() == '0' || peek() == '1')) {
			return consume() == '1';
		}
		throw fail("a boolean is ?0 or ?1");
	}

	// RFC 9651 section 4.2.10: validated, not decoded
	private Other displayString() {
		consume();
		if (atEnd() || consume() != '"') {
			throw fail("a display string starts with %\"");
		}
		while (!atEnd()) {
			char c = consume();
			if (c < 0x20 || c > 0x7E) {
				throw fail("a display string holds a character outside printable ASCII");
			}
			if (c == '"') {
				return Other.DISPLAY_STRING;
			}
			if (c == '%') {
				for (int i = 0; i < 2; i++) {
					char hex = consume();
					if (!(isDigit(hex) || (hex >= 'a' && hex <= 'f'))) {
						throw fail("a display string escapes with two lowercase hex digits");
					}
				}
			}
		}
		throw fail("unterminated display string");
	}

	private void discardSpaces() {
		while (!atEnd() && peek() == ' ') {
			this.position++;
		}
	}

	private void discardOptionalWhitespace() {
		while (!atEnd() && (peek() == ' ' || peek() == '\t')) {
			this.position++;
		}
	}

	private boolean atEnd() {
		return this.position >= this.input.length();
	}

	private char peek() {
		return this.input.charAt(this.position);
	}

	private char consume() {
		if (atEnd()) {
			throw fail("unexpected end");
		}
		return this.input.charAt(this.position++);
	}

	private Malformed fail(String reason) {
		return new Malformed(reason + " at " + this.position);
	}

	private static boolean isDigit(char c) {
		return c >= '0' && c <= '9';
	}

	private static boolean isLcAlpha(char c) {
		return c >= 'a' && c <= 'z';
	}

	private static boolean isAlpha(char c) {
		return isLcAlpha(c) || (c >= 'A' && c <= 'Z');
	}

	// RFC 9110 section 5.6.2
	private static boolean isTchar(char c) {
		return isAlpha(c) || isDigit(c) || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
	}

	/**
	 * An Item: its bare item and its parameters, in order.
	 */
	record Member(Object value, Map<String, Object> parameters) {
	}

	record Token(String value) {
	}

	/**
	 * Bare items this package never reads.
	 */
	enum Other {

		DATE, DISPLAY_STRING

	}

	/**
	 * The field is not what RFC 9651 or the draft defining it allows: it is ignored.
	 */
	static final class Malformed extends RuntimeException {

		Malformed(String reason) {
			super(reason, null, false, false);
		}

	}

}
