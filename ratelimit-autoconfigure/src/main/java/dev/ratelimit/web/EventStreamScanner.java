package dev.ratelimit.web;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import dev.ratelimit.policy.JsonPointer;
import dev.ratelimit.web.BodyNumbers.Unreadable;
import org.jspecify.annotations.Nullable;

/**
 * An event stream read as the HTML Living Standard's "event stream interpretation"
 * (section 9.2.6) reads it, for the numbers its events' {@code data} carry: each
 * event's data lines stream, joined by line feeds, into a fresh {@link JsonScanner},
 * and a pointer's number is the one of the last event whose data has a number there
 * (an OpenAI-style stream reports {@code usage} in its final chunk). An event whose
 * data is not JSON, such as {@code data: [DONE]}, is skipped; the others fields
 * ({@code event}, {@code id}, {@code retry}) and comments say nothing about numbers. As
 * the standard says, an event the stream ends in before its blank line is never
 * dispatched, so its numbers do not count.
 */
final class EventStreamScanner implements BodyScanner {

	private static final byte[] BYTE_ORDER_MARK = { (byte) 0xEF, (byte) 0xBB, (byte) 0xBF };

	private static final byte[] DATA = { 'd', 'a', 't', 'a' };

	private enum Line {

		START,
		/** In a field name that is {@code data} so far. */
		FIELD,
		/** Just after {@code data:}, where one space is dropped. */
		DATA_START,
		DATA,
		/** A comment, or a field that is not {@code data}. */
		IGNORED

	}

	private final JsonScanner event;

	private final @Nullable Number[] numbers;

	private final Unreadable[] misses;

	private Line line = Line.START;

	private int byteOrderMark;

	private int fieldMatched;

	private boolean afterCarriageReturn;

	private boolean eventHasData;

	EventStreamScanner(List<JsonPointer> pointers) {
		this.event = new JsonScanner(pointers);
		this.numbers = new Number[pointers.size()];
		this.misses = new Unreadable[pointers.size()];
		Arrays.fill(this.misses, Unreadable.NOT_FOUND);
	}

	@Override
	public boolean scan(ByteBuffer bytes) {
		int limit = bytes.limit();
		for (int i = bytes.position(); i < limit; i++) {
			next(bytes.get(i) & 0xFF);
		}
		bytes.position(limit);
		return true;
	}

	/**
	 * The stream's end discards the event it is in (section 9.2.6: "If the file ends in
	 * the middle of an event, before the final empty line, the incomplete event is not
	 * dispatched").
	 */
	@Override
	public boolean end() {
		return true;
	}

	/**
	 * Never: an event stream is read event by event, and an event that cannot be read is
	 * skipped.
	 */
	@Override
	public @Nullable Unreadable failure() {
		return null;
	}

	@Override
	public @Nullable Number number(int pointer) {
		return this.numbers[pointer];
	}

	@Override
	public Unreadable miss(int pointer) {
		return this.misses[pointer];
	}

	private void next(int b) {
		if (this.afterCarriageReturn) {
			this.afterCarriageReturn = false;
			if (b == '\n') {
				return;
			}
		}
		if (this.byteOrderMark < BYTE_ORDER_MARK.length) {
			if (b == (BYTE_ORDER_MARK[this.byteOrderMark] & 0xFF)) {
				this.byteOrderMark++;
				return;
			}
			// Bytes that began a byte order mark and did not finish it are a field name.
			this.line = (this.byteOrderMark > 0) ? Line.IGNORED : this.line;
			this.byteOrderMark = BYTE_ORDER_MARK.length;
		}
		if (b == '\r' || b == '\n') {
			endOfLine(b);
			return;
		}
		switch (this.line) {
			case START -> {
				if (b == DATA[0]) {
					this.fieldMatched = 1;
					this.line = Line.FIELD;
				}
				else {
					this.line = Line.IGNORED;
				}
			}
			case FIELD -> field(b);
			case DATA_START -> {
				this.line = Line.DATA;
				if (b != ' ') {
					this.event.next(b);
				}
			}
			case DATA -> this.event.next(b);
			case IGNORED -> {
			}
		}
	}

	private void field(int b) {
		if (this.fieldMatched == DATA.length) {
			if (b == ':') {
				startData();
				this.line = Line.DATA_START;
			}
			else {
				this.line = Line.IGNORED;
			}
		}
		else if (b == DATA[this.fieldMatched]) {
			this.fieldMatched++;
		}
		else {
			this.line = Line.IGNORED;
		}
	}

	/**
	 * A data line: the event's data is its lines' values, each followed by a line feed,
	 * without the last one (section 9.2.6, "dispatch the event", step 3).
	 */
	private void startData() {
		if (this.eventHasData) {
			this.event.next('\n');
		}
		this.eventHasData = true;
	}

	private void endOfLine(int b) {
		this.afterCarriageReturn = b == '\r';
		switch (this.line) {
			case START -> dispatch();
			// A line that is just "data" is a data field with an empty value.
			case FIELD -> {
				if (this.fieldMatched == DATA.length) {
					startData();
				}
			}
			default -> {
			}
		}
		this.line = Line.START;
	}

	private void dispatch() {
		if (!this.eventHasData) {
			return;
		}
		if (this.event.end()) {
			for (int p = 0; p < this.numbers.length; p++) {
				Number number = this.event.number(p);
				if (number != null) {
					this.numbers[p] = number;
				}
				else if (this.event.miss(p) != Unreadable.NOT_FOUND && this.numbers[p] == null) {
					this.misses[p] = this.event.miss(p);
				}
			}
		}
		this.event.reset();
		this.eventHasData = false;
	}

}
