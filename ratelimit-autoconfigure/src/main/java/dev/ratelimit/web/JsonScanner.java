package dev.ratelimit.web;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import dev.ratelimit.policy.JsonPointer;
import dev.ratelimit.web.BodyNumbers.Unreadable;
import org.jspecify.annotations.Nullable;

/**
 * A JSON text (RFC 8259) read byte by byte as UTF-8, checked against the grammar as a
 * whole, for the numbers at its pointers. Where a pointer's path leads nowhere the
 * scanner still walks the text but keeps nothing of it: one bit per open container (to
 * match its closing bracket), the pointers' progress along the path ({@link JsonPaths})
 * and the text of a number at a pointer. A member name that appears twice in an object
 * leaves the value of its last appearance: section 4 leaves duplicates to the reader,
 * and a streaming reader cannot take back what it has seen.
 */
final class JsonScanner implements BodyScanner {

	/**
	 * Containers open at once beyond which a text is not read (Jackson's default limit
	 * is 1000), so that matching brackets takes a fixed 128 bytes.
	 */
	static final int MAX_DEPTH = 1024;

	/**
	 * Characters of a number beyond which its text is not kept.
	 */
	static final int MAX_NUMBER = 64;

	private static final byte[] BYTE_ORDER_MARK = { (byte) 0xEF, (byte) 0xBB, (byte) 0xBF };

	private static final byte[] TRUE = { 't', 'r', 'u', 'e' };

	private static final byte[] FALSE = { 'f', 'a', 'l', 's', 'e' };

	private static final byte[] NULL = { 'n', 'u', 'l', 'l' };

	private enum State {

		/** Before the root value, where a byte order mark may come. */
		START,
		/** A value must come: after a colon, or a comma in an array. */
		VALUE,
		/** After an array's opening bracket: a value or the closing bracket. */
		FIRST_ELEMENT,
		/** After an object's opening brace: a name or the closing brace. */
		FIRST_MEMBER,
		/** After a comma in an object: a name. */
		NAME,
		COLON,
		/** After a value: a comma or a closing bracket, or the end of the text. */
		AFTER_VALUE,
		STRING,
		/** The continuation bytes of a character of several UTF-8 bytes. */
		CONTINUATION,
		ESCAPE,
		UNICODE_ESCAPE,
		MINUS,
		ZERO,
		INTEGER,
		POINT,
		FRACTION,
		EXPONENT,
		EXPONENT_SIGN,
		EXPONENT_DIGITS,
		LITERAL,
		FAILED

	}

	private final JsonPaths paths;

	private final long[] objects = new long[MAX_DEPTH / Long.SIZE];

	private final @Nullable Number[] numbers;

	private final Unreadable[] misses;

	private final boolean[] targets;

	private final byte[] number = new byte[MAX_NUMBER];

	private State state;

	private Unreadable failure;

	private int depth;

	private int byteOrderMark;

	private boolean inName;

	private int continuations;

	private int continuationLow;

	private int continuationHigh;

	private int unicode;

	private int hexDigits;

	private boolean anyTarget;

	private int numberLength;

	private byte[] literal = TRUE;

	private int literalMatched;

	JsonScanner(List<JsonPointer> pointers) {
		this.paths = new JsonPaths(pointers);
		this.numbers = new Number[pointers.size()];
		this.misses = new Unreadable[pointers.size()];
		this.targets = new boolean[pointers.size()];
		reset();
	}

	/**
	 * Ready for another text, as each event of an event stream carries one.
	 */
	void reset() {
		this.state = State.START;
		this.failure = Unreadable.MALFORMED;
		this.depth = 0;
		this.byteOrderMark = 0;
		this.anyTarget = false;
		this.paths.reset();
		Arrays.fill(this.numbers, null);
		Arrays.fill(this.misses, Unreadable.NOT_FOUND);
	}

	private boolean failed() {
		return this.state == State.FAILED;
	}

	@Override
	public boolean scan(ByteBuffer bytes) {
		int limit = bytes.limit();
		for (int i = bytes.position(); i < limit && this.state != State.FAILED; i++) {
			next(bytes.get(i) & 0xFF);
		}
		bytes.position(limit);
		return !failed();
	}

	@Override
	public boolean end() {
		if (this.depth == 0 && (this.state == State.ZERO || this.state == State.INTEGER
				|| this.state == State.FRACTION || this.state == State.EXPONENT_DIGITS)) {
			endNumber();
			this.state = State.AFTER_VALUE;
		}
		if (this.state != State.AFTER_VALUE || this.depth != 0) {
			fail(Unreadable.MALFORMED);
		}
		return !failed();
	}

	@Override
	public @Nullable Unreadable failure() {
		return failed() ? this.failure : null;
	}

	@Override
	public @Nullable Number number(int pointer) {
		return this.numbers[pointer];
	}

	@Override
	public Unreadable miss(int pointer) {
		return this.misses[pointer];
	}

	/**
	 * The next byte of the text, {@code 0} to {@code 255}.
	 */
	void next(int b) {
		switch (this.state) {
			case START -> start(b);
			case VALUE -> {
				if (!isWhitespace(b)) {
					startValue(b);
				}
			}
			case FIRST_ELEMENT -> {
				if (b == ']') {
					close();
				}
				else if (!isWhitespace(b)) {
					this.paths.firstElement(this.depth);
					startValue(b);
				}
			}
			case FIRST_MEMBER -> {
				if (b == '}') {
					close();
				}
				else {
					name(b);
				}
			}
			case NAME -> name(b);
			case COLON -> {
				if (b == ':') {
					this.state = State.VALUE;
				}
				else if (!isWhitespace(b)) {
					fail(Unreadable.MALFORMED);
				}
			}
			case AFTER_VALUE -> afterValue(b);
			case STRING -> string(b);
			case CONTINUATION -> continuation(b);
			case ESCAPE -> escape(b);
			case UNICODE_ESCAPE -> unicodeEscape(b);
			case MINUS -> numberStart(b);
			case ZERO -> numberAfterInteger(b);
			case INTEGER -> {
				if (isDigit(b)) {
					numberByte(b);
				}
				else {
					numberAfterInteger(b);
				}
			}
			case POINT -> numberDigit(b, State.FRACTION);
			case FRACTION -> {
				if (isDigit(b)) {
					numberByte(b);
				}
				else if (b == 'e' || b == 'E') {
					numberByte(b);
					this.state = State.EXPONENT;
				}
				else {
					numberEnded(b);
				}
			}
			case EXPONENT -> {
				if (b == '+' || b == '-') {
					numberByte(b);
					this.state = State.EXPONENT_SIGN;
				}
				else {
					numberDigit(b, State.EXPONENT_DIGITS);
				}
			}
			case EXPONENT_SIGN -> numberDigit(b, State.EXPONENT_DIGITS);
			case EXPONENT_DIGITS -> {
				if (isDigit(b)) {
					numberByte(b);
				}
				else {
					numberEnded(b);
				}
			}
			case LITERAL -> literal(b);
			case FAILED -> {
			}
		}
	}

	/**
	 * RFC 8259 section 8.1: a parser may ignore a byte order mark before the text.
	 */
	private void start(int b) {
		if (b == (BYTE_ORDER_MARK[this.byteOrderMark] & 0xFF)) {
			if (++this.byteOrderMark == BYTE_ORDER_MARK.length) {
				this.state = State.VALUE;
			}
		}
		else if (this.byteOrderMark > 0) {
			fail(Unreadable.MALFORMED);
		}
		else {
			this.state = State.VALUE;
			next(b);
		}
	}

	private void startValue(int b) {
		this.anyTarget = false;
		for (int p = 0; p < this.targets.length; p++) {
			this.targets[p] = this.paths.targets(p, this.depth);
			this.anyTarget |= this.targets[p];
		}
		switch (b) {
			case '{' -> open(true, State.FIRST_MEMBER);
			case '[' -> open(false, State.FIRST_ELEMENT);
			case '"' -> {
				notANumber();
				this.inName = false;
				this.state = State.STRING;
			}
			case '-' -> startNumber(b, State.MINUS);
			case '0' -> startNumber(b, State.ZERO);
			case 't' -> startLiteral(TRUE);
			case 'f' -> startLiteral(FALSE);
			case 'n' -> startLiteral(NULL);
			default -> {
				if (isDigit(b)) {
					startNumber(b, State.INTEGER);
				}
				else {
					fail(Unreadable.MALFORMED);
				}
			}
		}
	}

	private void open(boolean object, State next) {
		notANumber();
		if (this.depth == MAX_DEPTH) {
			fail(Unreadable.TOO_LARGE);
			return;
		}
		int level = this.depth++;
		if (object) {
			this.objects[level / Long.SIZE] |= 1L << level;
		}
		else {
			this.objects[level / Long.SIZE] &= ~(1L << level);
		}
		this.state = next;
	}

	private boolean inObject() {
		int level = this.depth - 1;
		return (this.objects[level / Long.SIZE] & (1L << level)) != 0;
	}

	private void close() {
		this.paths.close(this.depth);
		this.depth--;
		this.state = State.AFTER_VALUE;
	}

	private void name(int b) {
		if (b == '"') {
			this.paths.startName(this.depth);
			this.inName = true;
			this.state = State.STRING;
		}
		else if (!isWhitespace(b)) {
			fail(Unreadable.MALFORMED);
		}
	}

	private void afterValue(int b) {
		if (isWhitespace(b)) {
			return;
		}
		if (this.depth == 0) {
			fail(Unreadable.MALFORMED);
		}
		else if (b == ',') {
			if (inObject()) {
				this.state = State.NAME;
			}
			else {
				this.paths.nextElement(this.depth);
				this.state = State.VALUE;
			}
		}
		else if (b == (inObject() ? '}' : ']')) {
			close();
		}
		else {
			fail(Unreadable.MALFORMED);
		}
	}

	private void string(int b) {
		if (b == '"') {
			if (this.inName) {
				this.paths.endName(this.depth);
				this.state = State.COLON;
			}
			else {
				this.state = State.AFTER_VALUE;
			}
		}
		else if (b == '\\') {
			this.state = State.ESCAPE;
		}
		else if (b < 0x20) {
			fail(Unreadable.MALFORMED);
		}
		else if (b < 0x80) {
			nameByte(b);
		}
		else {
			leadByte(b);
		}
	}

	/**
	 * The first byte of a character of several UTF-8 bytes, and the range its second
	 * byte must be in so that it is neither overlong nor a surrogate nor beyond U+10FFFF
	 * (RFC 3629 section 4).
	 */
	private void leadByte(int b) {
		this.continuationLow = 0x80;
		this.continuationHigh = 0xBF;
		if (b >= 0xC2 && b <= 0xDF) {
			this.continuations = 1;
		}
		else if (b >= 0xE0 && b <= 0xEF) {
			this.continuations = 2;
			if (b == 0xE0) {
				this.continuationLow = 0xA0;
			}
			else if (b == 0xED) {
				this.continuationHigh = 0x9F;
			}
		}
		else if (b >= 0xF0 && b <= 0xF4) {
			this.continuations = 3;
			if (b == 0xF0) {
				this.continuationLow = 0x90;
			}
			else if (b == 0xF4) {
				this.continuationHigh = 0x8F;
			}
		}
		else {
			fail(Unreadable.MALFORMED);
			return;
		}
		nameByte(b);
		this.state = State.CONTINUATION;
	}

	private void continuation(int b) {
		if (b < this.continuationLow || b > this.continuationHigh) {
			fail(Unreadable.MALFORMED);
			return;
		}
		nameByte(b);
		this.continuationLow = 0x80;
		this.continuationHigh = 0xBF;
		if (--this.continuations == 0) {
			this.state = State.STRING;
		}
	}

	private void escape(int b) {
		int unescaped = switch (b) {
			case '"', '\\', '/' -> b;
			case 'b' -> '\b';
			case 'f' -> '\f';
			case 'n' -> '\n';
			case 'r' -> '\r';
			case 't' -> '\t';
			case 'u' -> -1;
			default -> -2;
		};
		if (unescaped == -2) {
			fail(Unreadable.MALFORMED);
		}
		else if (unescaped == -1) {
			this.unicode = 0;
			this.hexDigits = 0;
			this.state = State.UNICODE_ESCAPE;
		}
		else {
			nameByte(unescaped);
			this.state = State.STRING;
		}
	}

	private void unicodeEscape(int b) {
		int digit = Character.digit(b, 16);
		if (digit < 0 || b >= 0x80) {
			fail(Unreadable.MALFORMED);
			return;
		}
		this.unicode = (this.unicode << 4) | digit;
		if (++this.hexDigits == 4) {
			if (this.inName && this.paths.capturing()) {
				this.paths.nameCodeUnit(this.unicode);
			}
			this.state = State.STRING;
		}
	}

	private void nameByte(int b) {
		if (this.inName && this.paths.capturing()) {
			this.paths.nameByte(b);
		}
	}

	private void startLiteral(byte[] literal) {
		notANumber();
		this.literal = literal;
		this.literalMatched = 1;
		this.state = State.LITERAL;
	}

	private void literal(int b) {
		if (b != this.literal[this.literalMatched]) {
			fail(Unreadable.MALFORMED);
		}
		else if (++this.literalMatched == this.literal.length) {
			this.state = State.AFTER_VALUE;
		}
	}

	private void startNumber(int b, State next) {
		this.numberLength = 0;
		numberByte(b);
		this.state = next;
	}

	private void numberByte(int b) {
		if (this.anyTarget) {
			if (this.numberLength < MAX_NUMBER) {
				this.number[this.numberLength] = (byte) b;
			}
			this.numberLength++;
		}
	}

	/**
	 * After a minus sign: RFC 8259 section 6 allows no leading zeros, so a zero is the
	 * whole integer part.
	 */
	private void numberStart(int b) {
		if (b == '0') {
			numberByte(b);
			this.state = State.ZERO;
		}
		else {
			numberDigit(b, State.INTEGER);
		}
	}

	private void numberDigit(int b, State next) {
		if (isDigit(b)) {
			numberByte(b);
			this.state = next;
		}
		else {
			fail(Unreadable.MALFORMED);
		}
	}

	private void numberAfterInteger(int b) {
		if (b == '.') {
			numberByte(b);
			this.state = State.POINT;
		}
		else if (b == 'e' || b == 'E') {
			numberByte(b);
			this.state = State.EXPONENT;
		}
		else {
			numberEnded(b);
		}
	}

	/**
	 * A number ends at the first byte that cannot continue it, which is read again as
	 * what follows the value.
	 */
	private void numberEnded(int b) {
		endNumber();
		this.state = State.AFTER_VALUE;
		afterValue(b);
	}

	private void endNumber() {
		if (!this.anyTarget) {
			return;
		}
		Number value = (this.numberLength <= MAX_NUMBER) ? JsonNumbers.parse(this.number, this.numberLength) : null;
		for (int p = 0; p < this.targets.length; p++) {
			if (this.targets[p]) {
				this.numbers[p] = value;
				this.misses[p] = Unreadable.TOO_LARGE;
			}
		}
	}

	private void notANumber() {
		if (!this.anyTarget) {
			return;
		}
		for (int p = 0; p < this.targets.length; p++) {
			if (this.targets[p]) {
				this.numbers[p] = null;
				this.misses[p] = Unreadable.NOT_A_NUMBER;
			}
		}
		this.anyTarget = false;
	}

	private void fail(Unreadable why) {
		this.failure = why;
		this.state = State.FAILED;
	}

	private static boolean isWhitespace(int b) {
		return b == ' ' || b == '\n' || b == '\r' || b == '\t';
	}

	private static boolean isDigit(int b) {
		return b >= '0' && b <= '9';
	}

}
