package dev.ratelimit.web;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * A body's {@code gzip} or {@code deflate} content coding (RFC 9110 section 8.4.1)
 * undone as it streams, into a {@link BodyScanner}: the gzip framing (RFC 1952) is read
 * byte by byte around the deflate data, and the inflated bytes pass through one buffer
 * of {@value #OUTPUT} bytes, so that what is kept is the inflater's own window whatever
 * the body's size. A gzip body may be several members one after the other (RFC 1952
 * section 2.2), each checked against its trailer.
 */
final class Inflation {

	private static final int OUTPUT = 8192;

	private static final byte[] NO_INPUT = {};

	private static final int FHCRC = 0x02;

	private static final int FEXTRA = 0x04;

	private static final int FNAME = 0x08;

	private static final int FCOMMENT = 0x10;

	private static final int RESERVED = 0xE0;

	private enum Stage {

		/** Deflate: the first two bytes say whether a zlib header wraps the data. */
		WRAPPING,
		/** Gzip: a member's fixed header, {@code ID1 ID2 CM FLG MTIME XFL OS}. */
		HEADER,
		EXTRA_LENGTH,
		EXTRA,
		FILE_NAME,
		COMMENT,
		HEADER_CRC,
		DATA,
		/** Gzip: a member's {@code CRC32 ISIZE}. */
		TRAILER,
		/** The data has ended: at a gzip member's end another member may follow. */
		ENDED

	}

	private final boolean gzip;

	private final BodyScanner scanner;

	private final byte[] output = new byte[OUTPUT];

	private final ByteBuffer decoded = ByteBuffer.wrap(this.output);

	/**
	 * Of a gzip member's header while it is read, then of its data.
	 */
	private final CRC32 crc = new CRC32();

	private Inflater inflater;

	private Stage stage;

	private int flags;

	private int count;

	private long field;

	private int firstByte;

	private Inflation(boolean gzip, BodyScanner scanner) {
		this.gzip = gzip;
		this.scanner = scanner;
		this.stage = gzip ? Stage.HEADER : Stage.WRAPPING;
		this.inflater = new Inflater(true);
	}

	static Inflation gzip(BodyScanner scanner) {
		return new Inflation(true, scanner);
	}

	static Inflation deflate(BodyScanner scanner) {
		return new Inflation(false, scanner);
	}

	/**
	 * Inflates the bytes between the buffer's position and its limit into the scanner,
	 * moving the position.
	 * @return false when the coded data is corrupt or the scanner cannot read on
	 */
	boolean inflate(ByteBuffer coded) {
		while (coded.hasRemaining()) {
			boolean read = (this.stage == Stage.DATA) ? data(coded) : framing(coded.get() & 0xFF);
			if (!read) {
				return false;
			}
		}
		return true;
	}

	/**
	 * The body has ended: whether its coded data ended whole.
	 */
	boolean end() {
		return this.stage == Stage.ENDED;
	}

	/**
	 * Frees the inflater's native memory; its cleaner would, later.
	 */
	void release() {
		this.inflater.end();
	}

	private boolean data(ByteBuffer coded) {
		this.inflater.setInput(coded);
		try {
			return inflateInput();
		}
		finally {
			// The inflater must not hold on to a buffer its owner will release.
			this.inflater.setInput(NO_INPUT);
		}
	}

	private boolean inflateInput() {
		while (true) {
			int inflated;
			try {
				inflated = this.inflater.inflate(this.output);
			}
			catch (DataFormatException corrupt) {
				return false;
			}
			if (inflated > 0) {
				if (this.gzip) {
					this.crc.update(this.output, 0, inflated);
				}
				this.decoded.clear().limit(inflated);
				if (!this.scanner.scan(this.decoded)) {
					return false;
				}
			}
			else if (this.inflater.finished()) {
				this.stage = this.gzip ? Stage.TRAILER : Stage.ENDED;
				this.count = 0;
				this.field = 0;
				return true;
			}
			else {
				// No output and not finished: it waits for input, or for a dictionary none gave.
				return this.inflater.needsInput();
			}
		}
	}

	private boolean framing(int b) {
		return switch (this.stage) {
			case WRAPPING -> wrapping(b);
			case HEADER -> header(b);
			case EXTRA_LENGTH -> {
				headerByte(b);
				this.field |= (long) b << (8 * this.count);
				if (++this.count == 2) {
					this.count = 0;
					this.stage = Stage.EXTRA;
					afterExtra();
				}
				yield true;
			}
			case EXTRA -> {
				headerByte(b);
				this.count++;
				afterExtra();
				yield true;
			}
			case FILE_NAME, COMMENT -> {
				headerByte(b);
				if (b == 0) {
					this.stage = (this.stage == Stage.FILE_NAME) ? Stage.COMMENT : Stage.HEADER_CRC;
					afterNames();
				}
				yield true;
			}
			case HEADER_CRC -> headerCrc(b);
			case TRAILER -> trailer(b);
			case ENDED -> this.gzip && startMember(b);
			case DATA -> throw new IllegalStateException("Data is inflated, not framed");
		};
	}

	/**
	 * RFC 9110 section 8.4.1.2: {@code deflate} is a zlib stream (RFC 1950), and "some
	 * non-conformant implementations send the deflate compressed data without the zlib
	 * wrapper", which a zlib header's check (section 2.2) tells apart.
	 */
	private boolean wrapping(int b) {
		if (this.count == 0) {
			this.firstByte = b;
			this.count = 1;
			return true;
		}
		boolean zlib = (this.firstByte & 0x0F) == 8 && (this.firstByte >> 4) <= 7
				&& ((this.firstByte << 8) | b) % 31 == 0;
		if (zlib) {
			this.inflater.end();
			this.inflater = new Inflater(false);
		}
		this.stage = Stage.DATA;
		return data(ByteBuffer.wrap(new byte[] { (byte) this.firstByte, (byte) b }));
	}

	private boolean header(int b) {
		headerByte(b);
		int at = this.count++;
		boolean valid = switch (at) {
			case 0 -> b == 0x1F;
			case 1 -> b == 0x8B;
			// CM 8 is deflate, the only method defined.
			case 2 -> b == 8;
			case 3 -> {
				this.flags = b;
				yield (b & RESERVED) == 0;
			}
			default -> true;
		};
		if (valid && this.count == 10) {
			this.count = 0;
			this.field = 0;
			if ((this.flags & FEXTRA) != 0) {
				this.stage = Stage.EXTRA_LENGTH;
			}
			else {
				this.stage = Stage.FILE_NAME;
				afterNames();
			}
		}
		return valid;
	}

	private void afterExtra() {
		if (this.stage == Stage.EXTRA && this.count < this.field) {
			return;
		}
		this.stage = Stage.FILE_NAME;
		afterNames();
	}

	private void afterNames() {
		if (this.stage == Stage.FILE_NAME && (this.flags & FNAME) == 0) {
			this.stage = Stage.COMMENT;
		}
		if (this.stage == Stage.COMMENT && (this.flags & FCOMMENT) == 0) {
			this.stage = Stage.HEADER_CRC;
		}
		if (this.stage == Stage.HEADER_CRC) {
			this.count = 0;
			this.field = 0;
			if ((this.flags & FHCRC) == 0) {
				startData();
			}
		}
	}

	private void headerByte(int b) {
		this.crc.update(b);
	}

	/**
	 * RFC 1952 section 2.3.1: the two least significant bytes of the CRC32 of the header
	 * before them.
	 */
	private boolean headerCrc(int b) {
		if (this.count == 0) {
			this.field = this.crc.getValue() & 0xFFFF;
		}
		boolean valid = ((this.field >> (8 * this.count)) & 0xFF) == b;
		if (valid && ++this.count == 2) {
			startData();
		}
		return valid;
	}

	private void startData() {
		this.crc.reset();
		this.inflater.reset();
		this.stage = Stage.DATA;
	}

	/**
	 * RFC 1952 section 2.3.1: the CRC32 of the member's data, then its size modulo 2^32,
	 * both least significant byte first.
	 */
	private boolean trailer(int b) {
		this.field |= (long) b << (8 * (this.count % 4));
		if (++this.count % 4 != 0) {
			return true;
		}
		long expected = (this.count == 4) ? this.crc.getValue() : this.inflater.getBytesWritten() & 0xFFFFFFFFL;
		if (this.field != expected) {
			return false;
		}
		this.field = 0;
		if (this.count == 8) {
			this.stage = Stage.ENDED;
		}
		return true;
	}

	private boolean startMember(int b) {
		this.crc.reset();
		this.count = 0;
		this.stage = Stage.HEADER;
		return header(b);
	}

}
