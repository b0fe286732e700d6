package dev.ratelimit.web;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.ratelimit.policy.JsonPointer;
import org.jspecify.annotations.Nullable;

/**
 * The numbers at some JSON Pointers (RFC 6901) in a response body, read as the body
 * streams to the client: the body is neither kept nor altered (each buffer is read
 * through a duplicate), and what is kept is sized by the pointers, whatever the body's
 * size.
 * <ul>
 * <li>{@code application/json} and {@code application/*+json} (and a body without a
 * {@code Content-Type}): the value at each pointer. A text that breaks the grammar
 * anywhere (RFC 8259), truncated included, is {@link Unreadable#MALFORMED} as a whole,
 * even where a number was seen before the break.</li>
 * <li>{@code text/event-stream}: per pointer, the number of the last event whose
 * {@code data} has a number there ({@link EventStreamScanner}); an event whose data is
 * not JSON is skipped.</li>
 * <li>Any other media type is {@link Unreadable#MEDIA_TYPE}, and is not read.</li>
 * </ul>
 * Parameters such as {@code charset} are ignored: JSON exchanged between systems is
 * UTF-8 (RFC 8259 section 8.1), as an event stream always is. A {@code gzip} or
 * {@code deflate} content coding is undone as the body streams ({@link Inflation});
 * any other, or several, is {@link Unreadable#ENCODING}, and the body is not read. A
 * number is a {@link Long} when its value is whole and within a long's range, however
 * written ({@code 12.0} is {@code 12L}), else a {@link Double}. Not thread-safe: one
 * body's buffers come one after the other.
 */
final class BodyNumbers {

	/**
	 * Why a pointer's number could not be read.
	 */
	enum Unreadable {

		/** The body has no value at the pointer (no event has, in an event stream). */
		NOT_FOUND("not-found"),
		/** The value at the pointer is a string, an object, an array, a boolean or null. */
		NOT_A_NUMBER("not-a-number"),
		/** The body is not JSON, or its content coding is corrupt or truncated. */
		MALFORMED("malformed"),
		/** The body's content coding is not {@code gzip}, {@code deflate} or none. */
		ENCODING("encoding"),
		/** The body is neither JSON nor an event stream. */
		MEDIA_TYPE("media-type"),
		/**
		 * The number's text is longer than {@value JsonScanner#MAX_NUMBER} characters,
		 * or its value beyond a double's range, or the JSON is nested deeper than
		 * {@value JsonScanner#MAX_DEPTH} levels.
		 */
		TOO_LARGE("too-large");

		private final String tag;

		Unreadable(String tag) {
			this.tag = tag;
		}

		/**
		 * How the configuration and the metrics' tags spell it.
		 */
		String tag() {
			return this.tag;
		}

	}

	private final List<JsonPointer> pointers;

	private final @Nullable BodyScanner scanner;

	private final @Nullable Inflation inflation;

	private @Nullable Unreadable stopped;

	private boolean finished;

	private Map<String, Number> numbers = Map.of();

	private @Nullable Unreadable unreadable;

	private BodyNumbers(List<JsonPointer> pointers, @Nullable BodyScanner scanner, @Nullable Inflation inflation,
			@Nullable Unreadable stopped) {
		this.pointers = pointers;
		this.scanner = scanner;
		this.inflation = inflation;
		this.stopped = stopped;
	}

	/**
	 * A reader for a body of this {@code Content-Type} and {@code Content-Encoding}
	 * (either may be {@code null}), finding the numbers at {@code pointers}; with no
	 * pointers it reads nothing and finds nothing missing.
	 */
	static BodyNumbers of(@Nullable String contentType, @Nullable String contentEncoding, List<JsonPointer> pointers) {
		List<JsonPointer> read = List.copyOf(pointers);
		if (read.isEmpty()) {
			return new BodyNumbers(read, null, null, null);
		}
		BodyScanner scanner = scanner(contentType, read);
		if (scanner == null) {
			return new BodyNumbers(read, null, null, Unreadable.MEDIA_TYPE);
		}
		List<String> codings = codings(contentEncoding);
		if (codings.isEmpty()) {
			return new BodyNumbers(read, scanner, null, null);
		}
		if (codings.size() == 1 && (codings.get(0).equals("gzip") || codings.get(0).equals("x-gzip"))) {
			return new BodyNumbers(read, scanner, Inflation.gzip(scanner), null);
		}
		if (codings.size() == 1 && codings.get(0).equals("deflate")) {
			return new BodyNumbers(read, scanner, Inflation.deflate(scanner), null);
		}
		return new BodyNumbers(read, null, null, Unreadable.ENCODING);
	}

	/**
	 * RFC 9110 section 8.3.1: a media type is case-insensitive, its parameters follow a
	 * semicolon; section 8.3 lets a recipient without one guess, and JSON is the guess.
	 */
	private static @Nullable BodyScanner scanner(@Nullable String contentType, List<JsonPointer> pointers) {
		if (contentType == null || contentType.isBlank()) {
			return new JsonScanner(pointers);
		}
		int parameters = contentType.indexOf(';');
		String type = ((parameters < 0) ? contentType : contentType.substring(0, parameters)).strip()
			.toLowerCase(Locale.ROOT);
		if (type.equals("application/json") || (type.startsWith("application/") && type.endsWith("+json"))) {
			return new JsonScanner(pointers);
		}
		return type.equals("text/event-stream") ? new EventStreamScanner(pointers) : null;
	}

	/**
	 * RFC 9110 section 8.4: the codings in the order applied, case-insensitive;
	 * {@code identity} codes nothing (section 12.5.3), and {@code x-gzip} is
	 * {@code gzip} (section 8.4.1.3).
	 */
	private static List<String> codings(@Nullable String contentEncoding) {
		List<String> codings = new ArrayList<>();
		if (contentEncoding != null) {
			for (String coding : contentEncoding.split(",")) {
				String name = coding.strip().toLowerCase(Locale.ROOT);
				if (!name.isEmpty() && !name.equals("identity")) {
					codings.add(name);
				}
			}
		}
		return codings;
	}

	/**
	 * Reads the bytes between the buffer's position and its limit without moving them:
	 * the buffer is read through a duplicate, and not kept. Does nothing once the body is
	 * known to be unreadable, or once {@link #finish()} was called: a buffer may still be
	 * on its way when a cancelled exchange finishes its reader, and must pass on (and be
	 * released downstream) rather than fail.
	 */
	void accept(ByteBuffer buffer) {
		if (this.finished || this.stopped != null || this.scanner == null) {
			return;
		}
		ByteBuffer bytes = buffer.duplicate();
		boolean readable = (this.inflation != null) ? this.inflation.inflate(bytes) : this.scanner.scan(bytes);
		if (!readable) {
			stop();
		}
	}

	/**
	 * The body has ended; again does nothing.
	 */
	void finish() {
		if (this.finished) {
			return;
		}
		this.finished = true;
		if (this.stopped == null && this.scanner != null) {
			this.stopped = ended(this.scanner);
		}
		if (this.inflation != null) {
			this.inflation.release();
		}
		if (this.stopped != null || this.scanner == null) {
			this.unreadable = this.stopped;
			return;
		}
		Map<String, Number> found = new LinkedHashMap<>();
		for (int p = 0; p < this.pointers.size(); p++) {
			Number number = this.scanner.number(p);
			if (number != null) {
				found.put(this.pointers.get(p).text(), number);
			}
			else if (this.unreadable == null) {
				this.unreadable = this.scanner.miss(p);
			}
		}
		this.numbers = Collections.unmodifiableMap(found);
	}

	private @Nullable Unreadable ended(BodyScanner scanner) {
		if (this.inflation != null && !this.inflation.end()) {
			return Unreadable.MALFORMED;
		}
		return scanner.end() ? null : failure(scanner);
	}

	/**
	 * Each pointer's number, by {@link JsonPointer#text()}; a pointer without one is
	 * absent.
	 * @throws IllegalStateException before {@link #finish()}
	 */
	Map<String, Number> numbers() {
		requireFinished();
		return this.numbers;
	}

	/**
	 * Why a number could not be read: the body's reason, or the first pointer's (in the
	 * order given) that has no number; {@code null} when every pointer has one.
	 * @throws IllegalStateException before {@link #finish()}
	 */
	@Nullable Unreadable unreadable() {
		requireFinished();
		return this.unreadable;
	}

	private void requireFinished() {
		if (!this.finished) {
			throw new IllegalStateException("The body has not finished");
		}
	}

	private void stop() {
		this.stopped = failure(this.scanner);
		if (this.inflation != null) {
			this.inflation.release();
		}
	}

	/**
	 * The scanner's reason, or else the content coding's: corrupt.
	 */
	private static Unreadable failure(@Nullable BodyScanner scanner) {
		Unreadable failure = (scanner != null) ? scanner.failure() : null;
		return (failure != null) ? failure : Unreadable.MALFORMED;
	}

}
