package dev.ratelimit.web;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import dev.ratelimit.policy.JsonPointer;
import dev.ratelimit.web.BodyChunks.Read;
import dev.ratelimit.web.BodyNumbers.Unreadable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.ratelimit.web.BodyChunks.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * JSON bodies, each read whole, byte by byte, cut at every point and at random
 * ({@link BodyChunks}).
 */
class BodyNumbersTests {

	private static final String JSON = "application/json";

	private static Read json(String body, String... pointers) {
		return BodyChunks.read(JSON, null, utf8(body), pointers);
	}

	@Test
	void readsTheNumberAtAPointerInNestedObjects() {
		Read read = json("""
				{"id": "chatcmpl-1", "usage": {"prompt_tokens": 12, "completion_tokens": 30, "total_tokens": 42}}
				""", "/usage/total_tokens");
		assertThat(read.numbers()).containsExactly(Map.entry("/usage/total_tokens", 42L));
		assertThat(read.unreadable()).isNull();
	}

	@Test
	void readsSeveralPointersAndSaysWhyTheFirstMissingOneIsMissing() {
		Read read = json("""
				{"usage": {"input_tokens": 7, "output_tokens": "many"}, "model": "m"}
				""", "/usage/input_tokens", "/usage/cache_tokens", "/usage/output_tokens");
		assertThat(read.numbers()).containsExactly(Map.entry("/usage/input_tokens", 7L));
		assertThat(read.unreadable()).isEqualTo(Unreadable.NOT_FOUND);
	}

	@Test
	void readsWholeNumbersAsLongsHoweverWrittenAndTheOthersAsDoubles() {
		Read read = json("""
				{"a": -17, "b": 1.5, "c": 1.5e3, "d": 12.0, "e": -0, "f": 2E-1, "g": 9223372036854775807,
				 "h": 9223372036854775808, "i": 1e19, "j": -9223372036854775808, "k": 0.1e+1, "l": 1e-400}
				""", "/a", "/b", "/c", "/d", "/e", "/f", "/g", "/h", "/i", "/j", "/k", "/l");
		assertThat(read.numbers()).containsExactly(Map.entry("/a", -17L), Map.entry("/b", 1.5), Map.entry("/c", 1500L),
				Map.entry("/d", 12L), Map.entry("/e", 0L), Map.entry("/f", 0.2), Map.entry("/g", Long.MAX_VALUE),
				Map.entry("/h", 9.223372036854775808e18), Map.entry("/i", 1e19), Map.entry("/j", Long.MIN_VALUE),
				Map.entry("/k", 1L), Map.entry("/l", 0.0));
	}

	@Test
	void aNumberTooLongToKeepOrBeyondADoubleIsTooLarge() {
		String digits64 = "1234567890".repeat(6) + "1234";
		Read read = json("{\"kept\": " + digits64 + ", \"long\": " + digits64 + "5, \"huge\": 1e400, \"after\": 3}",
				"/kept", "/long", "/huge", "/after");
		assertThat(read.numbers()).containsOnlyKeys("/kept", "/after");
		assertThat(read.number("/kept")).isEqualTo(Double.parseDouble(digits64));
		assertThat(read.unreadable()).isEqualTo(Unreadable.TOO_LARGE);
		assertThat(json("{\"huge\": -1e400}", "/huge").unreadable()).isEqualTo(Unreadable.TOO_LARGE);
	}

	@Test
	void readsTheWholeDocumentAtTheEmptyPointer() {
		assertThat(json(" 42 ", "").numbers()).containsExactly(Map.entry("", 42L));
		assertThat(json("42", "").numbers()).containsExactly(Map.entry("", 42L));
		assertThat(json("{}", "").unreadable()).isEqualTo(Unreadable.NOT_A_NUMBER);
	}

	@Test
	void unescapesPointerTokensAsRfc6901Says() {
		Read read = json("""
				{"a/b": {"m~n": 1, "m~0n": 2, "~1": 3}, "a~1b": {"m~n": 4}}
				""", "/a~1b/m~0n", "/a~1b/~01", "/a~01b/m~0n");
		assertThat(read.numbers()).containsExactly(Map.entry("/a~1b/m~0n", 1L), Map.entry("/a~1b/~01", 3L),
				Map.entry("/a~01b/m~0n", 4L));
	}

	@Test
	void indexesArraysFromZeroWithoutLeadingZeros() {
		String body = """
				{"choices": [{"n": 10}, {"n": 11}, [{"n": 12}], {"n": 13}], "0": {"n": 14}}
				""";
		Read read = json(body, "/choices/0/n", "/choices/1/n", "/choices/2/0/n", "/choices/3/n", "/0/n");
		assertThat(read.numbers()).containsExactly(Map.entry("/choices/0/n", 10L), Map.entry("/choices/1/n", 11L),
				Map.entry("/choices/2/0/n", 12L), Map.entry("/choices/3/n", 13L), Map.entry("/0/n", 14L));
		for (String pointer : List.of("/choices/01/n", "/choices/-/n", "/choices/4/n", "/choices/n", "/0/0/n",
				"/choices/+1/n", "/choices/1.0/n")) {
			assertThat(json(body, pointer).unreadable()).as(pointer).isEqualTo(Unreadable.NOT_FOUND);
		}
	}

	@Test
	void aMemberOfTheSameNameElsewhereIsNotTheOneAtThePointer() {
		Read read = json("""
				{"data": {"usage": {"total": 1}}, "usage": {"detail": {"total": 2}, "totals": 3, "tota": 4,
				 "total": 5, "list": [{"total": 6}]}, "total": 7}
				""", "/usage/total");
		assertThat(read.numbers()).containsExactly(Map.entry("/usage/total", 5L));
	}

	@Test
	void skipsWhatIsDeeperThanThePointerWhateverItHolds() {
		Read read = json("""
				{"skip": {"a": [1, {"b": ["x\\"]}\\\\", {"c": {}}, []], "d": [[[[true]]]], "e": null}],
				 "f": "}]"}, "n": 9}
				""", "/n");
		assertThat(read.numbers()).containsExactly(Map.entry("/n", 9L));
	}

	@Test
	void theLastOfDuplicateNamesWins() {
		assertThat(json("{\"n\": 1, \"n\": 2}", "/n").numbers()).containsExactly(Map.entry("/n", 2L));
		assertThat(json("{\"n\": 1, \"o\": {\"n\": 3}, \"n\": \"x\"}", "/n").unreadable())
			.isEqualTo(Unreadable.NOT_A_NUMBER);
		assertThat(json("{\"n\": {}, \"n\": 4}", "/n").numbers()).containsExactly(Map.entry("/n", 4L));
		assertThat(json("{\"u\": {\"n\": 5}, \"u\": {\"m\": 6}}", "/u/n").numbers())
			.containsExactly(Map.entry("/u/n", 5L));
	}

	@ParameterizedTest
	@ValueSource(strings = { "\"12\"", "{\"n\": 1}", "[1]", "true", "false", "null" })
	void aValueOtherThanANumberIsNotANumber(String value) {
		Read read = json("{\"usage\": " + value + "}", "/usage");
		assertThat(read.numbers()).isEmpty();
		assertThat(read.unreadable()).isEqualTo(Unreadable.NOT_A_NUMBER);
	}

	@Test
	void aPathThroughAValueThatIsNoContainerIsNotFound() {
		assertThat(json("{\"usage\": null}", "/usage/total").unreadable()).isEqualTo(Unreadable.NOT_FOUND);
		assertThat(json("{\"usage\": \"{\\\"total\\\": 1}\"}", "/usage/total").unreadable())
			.isEqualTo(Unreadable.NOT_FOUND);
		assertThat(json("[]", "/0").unreadable()).isEqualTo(Unreadable.NOT_FOUND);
	}

	@Test
	void matchesMemberNamesWrittenWithEscapesOrAsUtf8() {
		String pointer = "/caf\u00e9/\"q\"/\u20ac/\ud83d\ude00/a\\b/\n";
		String escaped = "{\"caf\\u00e9\": {\"\\\"q\\\"\": {\"\\u20AC\": {\"\\ud83d\\ude00\": "
				+ "{\"a\\\\b\": {\"\\n\": 1}}}}}}";
		String raw = "{\"caf\u00e9\": {\"\\\"q\\\"\": {\"\u20ac\": {\"\ud83d\ude00\": {\"a\\u005cb\": {\"\\u000a\": 2}}}}}}";
		assertThat(json(escaped, pointer).numbers()).containsExactly(Map.entry(pointer, 1L));
		assertThat(json(raw, pointer).numbers()).containsExactly(Map.entry(pointer, 2L));
		assertThat(json("{\"\\/\": 3}", "/~1").numbers()).containsExactly(Map.entry("/~1", 3L));
	}

	@Test
	void aNameWithALoneSurrogateEqualsNoToken() {
		Read read = json("{\"\\ud83d\": 1, \"\\ude00\": 2, \"\\ud83dx\": 3, \"?\": 4, \"\\ud83d\\ud83d\\ude00\": 5}",
				"/?", "/\ud83d\ude00", "/\ud83dx");
		assertThat(read.numbers()).containsExactly(Map.entry("/?", 4L));
	}

	@Test
	void aNameLongerOrShorterThanTheTokenIsAnotherName() {
		Read read = json("{\"usage_total\": 1, \"usag\": 2, \"usage\\u0000\": 3, \"\": 4, \"usage\": 5}", "/usage",
				"/");
		assertThat(read.numbers()).containsExactly(Map.entry("/usage", 5L), Map.entry("/", 4L));
	}

	@Test
	void ignoresAByteOrderMarkBeforeTheText() {
		byte[] body = { (byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '{', '"', 'n', '"', ':', '1', '}' };
		assertThat(BodyChunks.read(JSON, null, body, "/n").numbers()).containsExactly(Map.entry("/n", 1L));
		byte[] half = { (byte) 0xEF, (byte) 0xBB, '{', '}' };
		assertThat(BodyChunks.read(JSON, null, half, "/n").unreadable()).isEqualTo(Unreadable.MALFORMED);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", " ", "{", "{\"n\": 1", "{\"n\": 1]", "[1}", "{\"n\" 1}", "{\"n\": 1,}", "[1,]",
			"{n: 1}", "{'n': 1}", "{\"n\": 01}", "{\"n\": 1.}", "{\"n\": .5}", "{\"n\": 1e}", "{\"n\": -}",
			"{\"n\": +1}", "{\"n\": 1} {}", "{\"n\": 1}}", "{\"n\": tru}", "{\"n\": nul}", "{\"n\": True}",
			"{\"n\": 1 2}", "{\"n\": \"a\u0001\"}", "{\"n\": \"\\x\"}", "{\"n\": \"\\u12g4\"}", "{\"n\": \"abc}",
			"{\"n\": 1, \"m\": }", "{,}", "[,1]", "{\"n\": 1}x", "{\"n\": NaN}", "{\"n\": Infinity}", "1 2",
			"{\"n\": 1}\u00a0", "{\"n\":\u00a01}" })
	void aTextBreakingTheGrammarAnywhereIsMalformedEvenAfterTheNumber(String body) {
		Read read = json(body, "/n");
		assertThat(read.numbers()).isEmpty();
		assertThat(read.unreadable()).isEqualTo(Unreadable.MALFORMED);
	}

	@Test
	void checksStringsAreUtf8() {
		byte[][] invalid = { { (byte) 0x80 }, { (byte) 0xC0, (byte) 0xAF }, { (byte) 0xC3 }, { (byte) 0xE0, (byte) 0x80,
				(byte) 0xAF }, { (byte) 0xED, (byte) 0xA0, (byte) 0x80 }, { (byte) 0xF4, (byte) 0x90, (byte) 0x80,
						(byte) 0x80 }, { (byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80 }, { (byte) 0xFF },
				{ (byte) 0xE2, (byte) 0x82, 'x' } };
		for (byte[] bytes : invalid) {
			assertThat(readString(bytes).unreadable()).as("%s", java.util.Arrays.toString(bytes))
				.isEqualTo(Unreadable.MALFORMED);
		}
		byte[][] valid = { utf8("\u00e9"), utf8("\u0800"), utf8("\ud7ff"), utf8("\ue000"), utf8("\uffff"),
				utf8("\ud800\udc00"), utf8("\udbff\udfff") };
		for (byte[] bytes : valid) {
			assertThat(readString(bytes).numbers()).as("%s", java.util.Arrays.toString(bytes))
				.containsExactly(Map.entry("/n", 1L));
		}
	}

	private static Read readString(byte[] bytes) {
		byte[] before = utf8("{\"s\": \"");
		byte[] after = utf8("\", \"n\": 1}");
		byte[] body = new byte[before.length + bytes.length + after.length];
		System.arraycopy(before, 0, body, 0, before.length);
		System.arraycopy(bytes, 0, body, before.length, bytes.length);
		System.arraycopy(after, 0, body, before.length + bytes.length, after.length);
		return BodyChunks.read(JSON, null, body, "/n");
	}

	@Test
	void readsNestingUpToItsDepthLimitAndNoDeeper() {
		int depth = JsonScanner.MAX_DEPTH;
		String deepest = "[".repeat(depth - 1) + "{\"n\": 1}" + "]".repeat(depth - 1);
		assertThat(BodyChunks.readInChunks(JSON, null, utf8(deepest), 100, "/0/1").unreadable())
			.isEqualTo(Unreadable.NOT_FOUND);
		String tooDeep = "{\"n\": 1, \"deep\": " + "[".repeat(depth) + "]".repeat(depth) + "}";
		assertThat(BodyChunks.readInChunks(JSON, null, utf8(tooDeep), 100, "/n").unreadable())
			.isEqualTo(Unreadable.TOO_LARGE);
		String pointer = "/0".repeat(depth - 1) + "/n";
		assertThat(BodyChunks.readInChunks(JSON, null, utf8(deepest), 100, pointer).numbers())
			.containsExactly(Map.entry(pointer, 1L));
	}

	@ParameterizedTest
	@ValueSource(strings = { "application/json", "Application/JSON", "application/json; charset=utf-8",
			" application/json ;charset=UTF-8", "application/problem+json", "application/vnd.api+json", "" })
	void readsJsonMediaTypes(String contentType) {
		assertThat(BodyChunks.read(contentType, null, utf8("{\"n\": 1}"), "/n").numbers())
			.containsExactly(Map.entry("/n", 1L));
	}

	@Test
	void readsABodyWithoutAContentTypeAsJson() {
		assertThat(BodyChunks.read(null, null, utf8("{\"n\": 1}"), "/n").numbers())
			.containsExactly(Map.entry("/n", 1L));
	}

	@ParameterizedTest
	@ValueSource(strings = { "text/plain", "text/html; charset=utf-8", "application/xml", "application/jsonx",
			"text/json+xml", "application/x-ndjson", "multipart/mixed" })
	void doesNotReadOtherMediaTypes(String contentType) {
		Read read = BodyChunks.read(contentType, null, utf8("{\"n\": 1}"), "/n");
		assertThat(read.numbers()).isEmpty();
		assertThat(read.unreadable()).isEqualTo(Unreadable.MEDIA_TYPE);
	}

	@Test
	void readsNothingForNoPointers() {
		BodyNumbers reader = BodyNumbers.of("text/plain", "br", List.of());
		reader.accept(ByteBuffer.wrap(utf8("anything")));
		reader.finish();
		assertThat(reader.numbers()).isEmpty();
		assertThat(reader.unreadable()).isNull();
	}

	@Test
	void readsEmptyBuffersAsNothing() {
		BodyNumbers reader = BodyNumbers.of(JSON, null, List.of(JsonPointer.parse("/n")));
		reader.accept(ByteBuffer.allocate(0));
		reader.accept(ByteBuffer.wrap(utf8("{\"n\":")));
		reader.accept(ByteBuffer.allocate(0));
		reader.accept(ByteBuffer.wrap(utf8("2}")));
		reader.finish();
		assertThat(reader.numbers()).containsExactly(Map.entry("/n", 2L));
	}

	@Test
	void answersOnlyOnceFinishedAndTakesNothingAfter() {
		BodyNumbers reader = BodyNumbers.of(JSON, null, List.of(JsonPointer.parse("/n")));
		reader.accept(ByteBuffer.wrap(utf8("{\"n\": 3}")));
		assertThatIllegalStateException().isThrownBy(reader::numbers);
		assertThatIllegalStateException().isThrownBy(reader::unreadable);
		reader.finish();
		reader.finish();
		assertThat(reader.numbers()).containsExactly(Map.entry("/n", 3L));
		// A buffer arriving after a cancel finished the reader passes unread.
		reader.accept(ByteBuffer.wrap(utf8("{\"n\": 4}")));
		assertThat(reader.numbers()).containsExactly(Map.entry("/n", 3L));
	}

	@Test
	void namesEachReasonAsTheConfigurationDoes() {
		assertThat(List.of(Unreadable.values()).stream().map(Unreadable::tag)).containsExactly("not-found",
				"not-a-number", "malformed", "encoding", "media-type", "too-large");
	}

	@Test
	void readsTenMegabytesForTheNumberAtTheirEnd() {
		StringBuilder body = new StringBuilder("{\"data\": [");
		String element = "{\"usage\": {\"total_tokens\": 1}, \"text\": \"caf\u00e9 \\\"}\\\" \\u00e9\", \"n\": [1.5e3, {}]},";
		while (body.length() < 10_000_000) {
			body.append(element);
		}
		body.append("0], \"usage\": {\"total_tokens\": 123456789}}");
		Read read = BodyChunks.readInChunks(JSON, null, utf8(body.toString()), 8192, "/usage/total_tokens",
				"/data/3/usage/total_tokens");
		assertThat(read.numbers()).containsExactly(Map.entry("/usage/total_tokens", 123456789L),
				Map.entry("/data/3/usage/total_tokens", 1L));
	}

}
