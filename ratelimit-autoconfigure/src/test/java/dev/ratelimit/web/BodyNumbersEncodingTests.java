package dev.ratelimit.web;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;

import dev.ratelimit.web.BodyChunks.Read;
import dev.ratelimit.web.BodyNumbers.Unreadable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.ratelimit.web.BodyChunks.utf8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bodies in a content coding, made with {@code java.util.zip}'s streams and read at
 * every cutting ({@link BodyChunks}), so that the gzip framing and the inflated data are
 * cut everywhere too.
 */
class BodyNumbersEncodingTests {

	private static final String JSON = "application/json";

	private static final String BODY = "{\"usage\": {\"total_tokens\": 42}, \"text\": \"caf\u00e9\"}";

	private static final String POINTER = "/usage/total_tokens";

	@ParameterizedTest
	@ValueSource(strings = { "gzip", "GZIP", "x-gzip", " gzip ", "identity, gzip", "gzip,identity" })
	void readsAGzipBody(String coding) {
		assertFound(BodyChunks.read(JSON, coding, gzip(utf8(BODY)), POINTER));
	}

	@ParameterizedTest
	@ValueSource(strings = { "identity", "", " , ", "IDENTITY" })
	void readsAnIdentityBodyAsIs(String coding) {
		assertFound(BodyChunks.read(JSON, coding, utf8(BODY), POINTER));
	}

	@Test
	void readsAGzipHeaderWithEveryOptionalField() {
		assertFound(BodyChunks.read(JSON, "gzip", gzipWithHeaderFields(utf8(BODY), 0x1E), POINTER));
		assertFound(BodyChunks.read(JSON, "gzip", gzipWithHeaderFields(utf8(BODY), 0x08), POINTER));
		assertFound(BodyChunks.read(JSON, "gzip", gzipWithHeaderFields(utf8(BODY), 0x04), POINTER));
	}

	@Test
	void readsGzipMembersOneAfterAnother() {
		byte[] first = gzip(utf8("{\"usage\": {\"total_"));
		byte[] second = gzip(utf8("tokens\": 42}}"));
		assertThat(BodyChunks.read(JSON, "gzip", concat(first, second), POINTER).numbers())
			.containsExactly(Map.entry(POINTER, 42L));
	}

	@Test
	void aGzipBodyWhoseChecksDoNotHoldIsMalformed() {
		byte[] gzip = gzip(utf8(BODY));
		assertMalformed(changed(gzip, gzip.length - 8, 1));
		assertMalformed(changed(gzip, gzip.length - 1, 1));
		assertMalformed(Arrays.copyOf(gzip, gzip.length - 1));
		assertMalformed(Arrays.copyOf(gzip, gzip.length / 2));
		assertMalformed(Arrays.copyOf(gzip, 5));
		assertMalformed(new byte[0]);
		assertMalformed(changed(gzip, 0, 1));
		assertMalformed(changed(gzip, 2, 1));
		assertMalformed(changed(gzip, 3, 0x20));
		assertMalformed(concat(gzip, utf8(" ")));
		byte[] withHeaderCrc = gzipWithHeaderFields(utf8(BODY), 0x02);
		assertFound(BodyChunks.read(JSON, "gzip", withHeaderCrc, POINTER));
		int headerCrc = withHeaderCrc.length - (gzip.length - 10) - 2;
		assertMalformed(changed(withHeaderCrc, headerCrc, 1));
	}

	@Test
	void aGzipBodyWhoseDeflateDataIsCorruptIsMalformed() {
		byte[] gzip = gzip(utf8(BODY));
		for (int at = 10; at < gzip.length - 8; at++) {
			assertMalformed(changed(gzip, at, 0x55));
		}
	}

	@Test
	void readsADeflateBodyWithTheZlibWrapperOrWithout() {
		assertFound(BodyChunks.read(JSON, "deflate", zlib(utf8(BODY)), POINTER));
		assertFound(BodyChunks.read(JSON, "Deflate", rawDeflate(utf8(BODY)), POINTER));
		assertThat(BodyChunks.read(null, "deflate", rawDeflate(utf8("7")), "").numbers())
			.containsExactly(Map.entry("", 7L));
	}

	@Test
	void aDeflateBodyThatIsCutOrCorruptOrHasMoreIsMalformed() {
		byte[] zlib = zlib(utf8(BODY));
		for (byte[] body : new byte[][] { Arrays.copyOf(zlib, zlib.length - 1), changed(zlib, zlib.length - 1, 1),
				concat(zlib, new byte[] { 0 }), concat(rawDeflate(utf8(BODY)), new byte[] { 0 }), new byte[] { 0x78 },
				new byte[0] }) {
			Read read = BodyChunks.read(JSON, "deflate", body, POINTER);
			assertThat(read.unreadable()).isEqualTo(Unreadable.MALFORMED);
			assertThat(read.numbers()).isEmpty();
		}
	}

	@Test
	void aCodedBodyIsReadAsItsMediaTypeSays() {
		assertThat(BodyChunks.read(JSON, "gzip", gzip(utf8("{\"n\": 1")), "/n").unreadable())
			.isEqualTo(Unreadable.MALFORMED);
		String tooDeep = "[".repeat(JsonScanner.MAX_DEPTH + 1);
		assertThat(BodyChunks.readInChunks(JSON, "gzip", gzip(utf8(tooDeep)), 64, "/n").unreadable())
			.isEqualTo(Unreadable.TOO_LARGE);
		String events = "data: {\"n\": 1}\n\ndata: [DONE]\n\ndata: {\"n\": 2}\n\ndata: {\"n\n\n";
		assertThat(BodyChunks.read("text/event-stream", "deflate", zlib(utf8(events)), "/n").numbers())
			.containsExactly(Map.entry("/n", 2L));
	}

	@ParameterizedTest
	@ValueSource(strings = { "br", "zstd", "compress", "x-compress", "gzip, gzip", "deflate, gzip", "gzip, br",
			"aes128gcm", "dcb" })
	void doesNotReadOtherCodings(String coding) {
		Read read = BodyChunks.read(JSON, coding, utf8(BODY), POINTER);
		assertThat(read.numbers()).isEmpty();
		assertThat(read.unreadable()).isEqualTo(Unreadable.ENCODING);
	}

	@Test
	void aMediaTypeItCannotReadIsSaidBeforeTheCoding() {
		assertThat(BodyChunks.read("text/plain", "br", utf8(BODY), POINTER).unreadable())
			.isEqualTo(Unreadable.MEDIA_TYPE);
	}

	@Test
	void inflatesTenMegabytesInSmallBuffers() {
		StringBuilder body = new StringBuilder("{\"items\": [");
		int item = 0;
		while (body.length() < 10_000_000) {
			body.append("{\"id\": ").append(item++).append(", \"usage\": {\"total_tokens\": ").append(item % 977).append("}},");
		}
		body.append("{}], \"usage\": {\"total_tokens\": 31337}}");
		Read read = BodyChunks.readInChunks(JSON, "gzip", gzip(utf8(body.toString())), 4096, POINTER, "/items/100/id");
		assertThat(read.numbers()).containsExactly(Map.entry(POINTER, 31337L), Map.entry("/items/100/id", 100L));
	}

	private static void assertFound(Read read) {
		assertThat(read.numbers()).containsExactly(Map.entry(POINTER, 42L));
		assertThat(read.unreadable()).isNull();
	}

	private static void assertMalformed(byte[] gzip) {
		Read read = BodyChunks.read(JSON, "gzip", gzip, POINTER);
		assertThat(read.unreadable()).isEqualTo(Unreadable.MALFORMED);
		assertThat(read.numbers()).isEmpty();
	}

	static byte[] gzip(byte[] bytes) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
			gzip.write(bytes);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return out.toByteArray();
	}

	static byte[] zlib(byte[] bytes) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		try (DeflaterOutputStream deflate = new DeflaterOutputStream(out)) {
			deflate.write(bytes);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return out.toByteArray();
	}

	private static byte[] rawDeflate(byte[] bytes) {
		Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
		deflater.setInput(bytes);
		deflater.finish();
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		byte[] buffer = new byte[256];
		while (!deflater.finished()) {
			out.write(buffer, 0, deflater.deflate(buffer));
		}
		deflater.end();
		return out.toByteArray();
	}

	/**
	 * A gzip member (RFC 1952 section 2.3) with the optional header fields the flags
	 * name: FHCRC 0x02, FEXTRA 0x04, FNAME 0x08, FCOMMENT 0x10.
	 */
	private static byte[] gzipWithHeaderFields(byte[] bytes, int flags) {
		ByteArrayOutputStream header = new ByteArrayOutputStream();
		header.writeBytes(new byte[] { 0x1F, (byte) 0x8B, 8, (byte) flags, 1, 2, 3, 4, 0, (byte) 0xFF });
		if ((flags & 0x04) != 0) {
			header.writeBytes(new byte[] { 3, 0, 'a', 'b', 0 });
		}
		if ((flags & 0x08) != 0) {
			header.writeBytes(utf8("usage.json\0"));
		}
		if ((flags & 0x10) != 0) {
			header.writeBytes(utf8("a comment\0"));
		}
		if ((flags & 0x02) != 0) {
			CRC32 crc = new CRC32();
			crc.update(header.toByteArray());
			header.writeBytes(littleEndian(crc.getValue(), 2));
		}
		CRC32 crc = new CRC32();
		crc.update(bytes);
		return concat(header.toByteArray(), rawDeflate(bytes), littleEndian(crc.getValue(), 4),
				littleEndian(bytes.length, 4));
	}

	private static byte[] littleEndian(long value, int length) {
		byte[] bytes = new byte[length];
		for (int i = 0; i < length; i++) {
			bytes[i] = (byte) (value >> (8 * i));
		}
		return bytes;
	}

	private static byte[] changed(byte[] bytes, int at, int xor) {
		byte[] changed = bytes.clone();
		changed[at] ^= (byte) xor;
		return changed;
	}

	static byte[] concat(byte[]... parts) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		for (byte[] part : parts) {
			out.writeBytes(part);
		}
		return out.toByteArray();
	}

}
