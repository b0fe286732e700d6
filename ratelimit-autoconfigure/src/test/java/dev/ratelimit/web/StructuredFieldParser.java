package dev.ratelimit.web;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict parser of Structured Field Lists, written from the algorithms of RFC 9651
 * section 4.2 and independent of the code that serializes our fields: every rule there
 * that says "fail parsing" fails here with an {@link IllegalArgumentException}.
 * <p>
 * Bare items parse to {@link String} (String), {@link Long} (Integer),
 * {@link BigDecimal} (Decimal), {@link Token}, {@code byte[]} (Byte Sequence),
 * {@link Boolean}, {@link Date} and {@link DisplayString}.
 */
public final class StructuredFieldParser {

	private final String input;

	private int position;

	private StructuredFieldParser(String input) {
		this.input = input;
	}

	/**
	 * Parse the lines of one field as a List (RFC 9651 section 4.2): lines are combined
	 * into one comma-separated value first, as the RFC requires.
	 * @throws IllegalArgumentException when the field is not a valid List
	 */
	public static List<Member> parseList(List<String> fieldLines) {
		if (fieldLines == null || fieldLines.isEmpty()) {
			throw new IllegalArgumentException("the field is missing");
		}
		StructuredFieldParser parser = new StructuredFieldParser(ascii(String.join(", ", fieldLines)));
		parser.discardSpaces();
		List<Member> members = parser.list();
		parser.discardSpaces();
		if (!parser.atEnd()) {
			parser.fail("unparsed characters at the end");
		}
		return members;
	}

	/**
	 * Parse one field line as a List.
	 */
	public static List<Member> parseList(String fieldValue) {
		return parseList(List.of(fieldValue));
	}

	private static String ascii(String value) {
		try {
			return StandardCharsets.US_ASCII.newDecoder()
				.onMalformedInput(CodingErrorAction.REPORT)
				.onUnmappableCharacter(CodingErrorAction.REPORT)
				.decode(ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8)))
				.toString();
		}
		catch (CharacterCodingException ex) {
			throw new IllegalArgumentException("the field value is not ASCII: " + value, ex);
		}
	}

	// RFC 9651 section 4.2.1
	private List<Member> list() {
		List<Member> members = new ArrayList<>();
		while (!atEnd()) {
			members.add(itemOrInnerList());
			discardOptionalWhitespace();
			if (atEnd()) {
				return members;
			}
			if (consume() != ',') {
				fail("expected ',' between list members");
			}
			discardOptionalWhitespace();
			if (atEnd()) {
				fail("trailing comma");
			}
		}
		return members;
	}

	// RFC 9651 section 4.2.1.1
	private Member itemOrInnerList() {
		if (peek() == '(') {
			return innerList();
		}
		return item();
	}

	// RFC 9651 section 4.2.1.2
	private Member innerList() {
		if (consume() != '(') {
			fail("expected '('");
		}
		List<Member> items = new ArrayList<>();
		while (!atEnd()) {
			discardSpaces();
			if (!atEnd() && peek() == ')') {
				consume();
				return new Member(new InnerList(items), parameters());
			}
			items.add(item());
			if (atEnd() || (peek() != ' ' && peek() != ')')) {
				fail("expected ' ' or ')' in an inner list");
			}
		}
		fail("unterminated inner list");
		return null;
	}

	// RFC 9651 section 4.2.3
	private Member item() {
		Object bareItem = bareItem();
		return new Member(bareItem, parameters());
	}

	// RFC 9651 section 4.2.3.1
	private Object bareItem() {
		if (atEnd()) {
			fail("expected an item");
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
			Object seconds = number();
			if (!(seconds instanceof Long)) {
				fail("a date must be an integer");
			}
			return new Date((Long) seconds);
		}
		if (c == '%') {
			return displayString();
		}
		fail("unrecognised item type '" + c + "'");
		return null;
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
			fail("a key must start with a lowercase letter or '*'");
		}
		StringBuilder key = new StringBuilder();
		while (!atEnd()) {
			char c = peek();
			if (!(isLcAlpha(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c == '*')) {
				break;
			}
			key.append(consume());
		}
		return key.toString();
	}

	// RFC 9651 section 4.2.4
	private Object number() {
		boolean decimal = false;
		int sign = 1;
		StringBuilder number = new StringBuilder();
		if (peek() == '-') {
			consume();
			sign = -1;
		}
		if (atEnd()) {
			fail("empty integer");
		}
		if (!isDigit(peek())) {
			fail("a number must start with a digit");
		}
		while (!atEnd()) {
			char c = peek();
			if (isDigit(c)) {
				number.append(consume());
			}
			else if (!decimal && c == '.') {
				if (number.length() > 12) {
					fail("a decimal has more than 12 integer digits");
				}
				number.append(consume());
				decimal = true;
			}
			else {
				break;
			}
			if (!decimal && number.length() > 15) {
				fail("an integer has more than 15 digits");
			}
			if (decimal && number.length() > 16) {
				fail("a decimal has more than 16 characters");
			}
		}
		if (!decimal) {
			return sign * Long.parseLong(number.toString());
		}
		if (number.charAt(number.length() - 1) == '.') {
			fail("a decimal ends with '.'");
		}
		if (number.length() - number.indexOf(".") - 1 > 3) {
			fail("a decimal has more than 3 fractional digits");
		}
		return new BigDecimal(number.toString()).multiply(BigDecimal.valueOf(sign));
	}

	// RFC 9651 section 4.2.5
	private String string() {
		if (consume() != '"') {
			fail("expected '\"'");
		}
		StringBuilder string = new StringBuilder();
		while (!atEnd()) {
			char c = consume();
			if (c == '\\') {
				if (atEnd()) {
					fail("a string ends with '\\'");
				}
				char next = consume();
				if (next != '"' && next != '\\') {
					fail("'\\' escapes only '\"' or '\\'");
				}
				string.append(next);
			}
			else if (c == '"') {
				return string.toString();
			}
			else if (c < 0x20 || c > 0x7E) {
				fail("a string holds a character outside printable ASCII");
			}
			else {
				string.append(c);
			}
		}
		fail("unterminated string");
		return null;
	}

	// RFC 9651 section 4.2.6
	private Token token() {
		if (!(isAlpha(peek()) || peek() == '*')) {
			fail("a token must start with a letter or '*'");
		}
		StringBuilder token = new StringBuilder();
		while (!atEnd() && (isTchar(peek()) || peek() == ':' || peek() == '/')) {
			token.append(consume());
		}
		return new Token(token.toString());
	}

	// RFC 9651 section 4.2.7
	private byte[] byteSequence() {
		consume();
		int end = this.input.indexOf(':', this.position);
		if (end < 0) {
			fail("unterminated byte sequence");
		}
		String base64 = this.input.substring(this.position, end);
		this.position = end + 1;
		for (int i = 0; i < base64.length(); i++) {
			char c = base64.charAt(i);
			if (!(isAlpha(c) || isDigit(c) || c == '+' || c == '/' || c == '=')) {
				fail("a byte sequence holds a character outside base64");
			}
		}
		return Base64.getDecoder().decode(base64);
	}

	// RFC 9651 section 4.2.8
	private Boolean bool() {
		consume();
		if (!atEnd() && peek() == '1') {
			consume();
			return Boolean.TRUE;
		}
		if (!atEnd() && peek() == '0') {
			consume();
			return Boolean.FALSE;
		}
		fail("a boolean is ?0 or ?1");
		return null;
	}

	// RFC 9651 section 4.2.10
	private DisplayString displayString() {
		consume();
		if (atEnd() || consume() != '"') {
			fail("a display string starts with %\"");
		}
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		while (!atEnd()) {
			char c = consume();
			if (c < 0x20 || c > 0x7E) {
				fail("a display string holds a character outside printable ASCII");
			}
			if (c == '%') {
				if (this.position + 2 > this.input.length()) {
					fail("a display string's escape needs two hex digits");
				}
				String hex = this.input.substring(this.position, this.position + 2);
				this.position += 2;
				if (!hex.matches("[0-9a-f]{2}")) {
					fail("a display string's escape is two lowercase hex digits");
				}
				bytes.write(Integer.parseInt(hex, 16));
			}
			else if (c == '"') {
				try {
					return new DisplayString(StandardCharsets.UTF_8.newDecoder()
						.onMalformedInput(CodingErrorAction.REPORT)
						.decode(ByteBuffer.wrap(bytes.toByteArray()))
						.toString());
				}
				catch (CharacterCodingException ex) {
					fail("a display string is not UTF-8");
				}
			}
			else {
				bytes.write(c);
			}
		}
		fail("unterminated display string");
		return null;
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
			fail("unexpected end");
		}
		return this.input.charAt(this.position++);
	}

	private void fail(String reason) {
		throw new IllegalArgumentException(reason + " at " + this.position + " of '" + this.input + "'");
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
	 * A member of a List: an Item's bare item, or an {@link InnerList}, with its
	 * parameters in order.
	 */
	public record Member(Object value, Map<String, Object> parameters) {
	}

	public record InnerList(List<Member> items) {
	}

	public record Token(String value) {
	}

	public record Date(long epochSeconds) {
	}

	public record DisplayString(String value) {
	}

}
