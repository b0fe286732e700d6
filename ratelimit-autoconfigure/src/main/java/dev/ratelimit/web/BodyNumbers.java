package dev.ratelimit.web;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.policy.JsonPointer;
import org.jspecify.annotations.Nullable;

/**
 * The numbers JSON Pointers (RFC 6901) find in a response body, read as it streams by.
 * <p>
 * Stand-in of the web branch, with the API of the streaming reader that replaces it: it
 * reads only a flat JSON object of at most {@link #MAX_BYTES}, one-token pointers, with
 * no encoding, enough for the request path's tests.
 */
final class BodyNumbers {

	static final int MAX_BYTES = 64 * 1024;

	private static final String NUMBER = "-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?";

	private final List<JsonPointer> pointers;

	private final ByteArrayOutputStream body = new ByteArrayOutputStream();

	private final Map<String, Number> numbers = new HashMap<>();

	private @Nullable Unreadable unreadable;

	private BodyNumbers(List<JsonPointer> pointers, @Nullable Unreadable unreadable) {
		this.pointers = pointers;
		this.unreadable = unreadable;
	}

	/**
	 * A reader of a body of that media type and content coding, both as the response's
	 * headers give them.
	 */
	static BodyNumbers of(@Nullable String contentType, @Nullable String contentEncoding, List<JsonPointer> pointers) {
		if (contentEncoding != null && !contentEncoding.equalsIgnoreCase("identity")) {
			return new BodyNumbers(pointers, Unreadable.ENCODING);
		}
		if (contentType == null || !contentType.toLowerCase().contains("json")) {
			return new BodyNumbers(pointers, Unreadable.MEDIA_TYPE);
		}
		return new BodyNumbers(pointers, null);
	}

	/**
	 * Read the buffer's remaining bytes, leaving its position where it was.
	 */
	void accept(ByteBuffer buffer) {
		if (this.unreadable != null) {
			return;
		}
		if (this.body.size() + buffer.remaining() > MAX_BYTES) {
			this.unreadable = Unreadable.TOO_LARGE;
			return;
		}
		ByteBuffer view = buffer.duplicate();
		byte[] bytes = new byte[view.remaining()];
		view.get(bytes);
		this.body.writeBytes(bytes);
	}

	/**
	 * The body has ended: find each pointer's number.
	 */
	void finish() {
		if (this.unreadable != null) {
			return;
		}
		String json = this.body.toString(StandardCharsets.UTF_8).strip();
		if (!json.startsWith("{") || !json.endsWith("}")) {
			this.unreadable = Unreadable.MALFORMED;
			return;
		}
		for (JsonPointer pointer : this.pointers) {
			if (pointer.tokens().size() != 1) {
				continue;
			}
			Matcher member = Pattern.compile("\"" + Pattern.quote(pointer.tokens().get(0)) + "\"\\s*:\\s*("
					+ NUMBER + ")?").matcher(json);
			if (!member.find()) {
				continue;
			}
			if (member.group(1) == null) {
				this.unreadable = Unreadable.NOT_A_NUMBER;
				continue;
			}
			String number = member.group(1);
			this.numbers.put(pointer.text(), number.matches("-?[0-9]+") ? (Number) Long.valueOf(number)
					: (Number) Double.valueOf(number));
		}
		if (this.numbers.isEmpty() && this.unreadable == null) {
			this.unreadable = Unreadable.NOT_FOUND;
		}
	}

	/**
	 * Each pointer's number found, by the pointer as written.
	 */
	Map<String, Number> numbers() {
		return this.numbers;
	}

	/**
	 * Why a number could not be read, or {@code null}.
	 */
	@Nullable Unreadable unreadable() {
		return this.unreadable;
	}

	/**
	 * Why a body's numbers could not be read.
	 */
	enum Unreadable {

		NOT_FOUND, NOT_A_NUMBER, MALFORMED, ENCODING, MEDIA_TYPE, TOO_LARGE

	}

}
