package dev.ratelimit.web;

import java.util.Map;

import dev.ratelimit.web.BodyChunks.Read;
import dev.ratelimit.web.BodyNumbers.Unreadable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.ratelimit.web.BodyChunks.utf8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Event streams (HTML Living Standard, section 9.2.6), each read at every cutting
 * ({@link BodyChunks}).
 */
class BodyNumbersEventStreamTests {

	private static final String EVENT_STREAM = "text/event-stream";

	private static final String TOTAL = "/usage/total_tokens";

	/**
	 * An OpenAI chat completion streamed with {@code stream_options.include_usage}:
	 * every chunk has {@code "usage": null} but the last, which has no choices.
	 */
	private static final String OPENAI = """
			data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}],"usage":null}

			data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Caf\u00e9 \\"au lait\\""}}],"usage":null}

			data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}

			data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29}}

			data: [DONE]

			""";

	private static Read events(String body, String... pointers) {
		return BodyChunks.read(EVENT_STREAM, null, utf8(body), pointers);
	}

	@Test
	void readsTheUsageOfAnOpenAiStreamFromItsLastChunk() {
		Read read = events(OPENAI, TOTAL, "/usage/prompt_tokens", "/choices/0/index");
		assertThat(read.numbers()).containsExactly(Map.entry(TOTAL, 29L), Map.entry("/usage/prompt_tokens", 19L),
				Map.entry("/choices/0/index", 0L));
		assertThat(read.unreadable()).isNull();
	}

	@Test
	void readsTheLastEventThatHasANumberAtThePointer() {
		String anthropic = """
				event: message_start
				data: {"type":"message_start","message":{"usage":{"input_tokens":25,"output_tokens":1}}}

				event: content_block_delta
				data: {"type":"content_block_delta","delta":{"text":"Hi"}}

				event: message_delta
				data: {"type":"message_delta","usage":{"output_tokens":15}}

				event: ping
				data: {"type": "ping", "usage": {"output_tokens": null}}

				event: message_stop
				data: {"type":"message_stop"}

				""";
		Read read = events(anthropic, "/usage/output_tokens", "/message/usage/input_tokens");
		assertThat(read.numbers()).containsExactly(Map.entry("/usage/output_tokens", 15L),
				Map.entry("/message/usage/input_tokens", 25L));
	}

	@ParameterizedTest
	@ValueSource(strings = { "\n", "\r\n", "\r" })
	void endsLinesAtCarriageReturnsLineFeedsOrBoth(String end) {
		String body = ": a comment" + end + "event: usage" + end + "data: {\"usage\": {\"total_tokens\": 5}}" + end + end
				+ "data: {\"usage\": {\"total_tokens\": 6}}" + end + end;
		assertThat(events(body, TOTAL).numbers()).containsExactly(Map.entry(TOTAL, 6L));
	}

	@Test
	void joinsAnEventsDataLinesWithLineFeeds() {
		String body = "data: {\"usage\":\r\ndata:  {\"total_tokens\"\ndata\rdata:\n  data: ignored\r\ndata: :7}}\n\n";
		assertThat(events(body, TOTAL).numbers()).containsExactly(Map.entry(TOTAL, 7L));
		// The joining line feed parts the digits: two numbers, so no JSON, and the event is skipped.
		assertThat(events("data: {\"n\": 1\ndata: 2}\n\n", "/n").unreadable()).isEqualTo(Unreadable.NOT_FOUND);
	}

	@Test
	void dropsOneSpaceAfterTheColonAndKeepsTheRest() {
		assertThat(events("data:{\"n\": 1}\n\n", "/n").numbers()).containsExactly(Map.entry("/n", 1L));
		assertThat(events("data:   {\"n\": 2}\n\n", "/n").numbers()).containsExactly(Map.entry("/n", 2L));
		assertThat(events("data: \"\\u0031\"\n\ndata:\t3\n\n", "").numbers()).containsExactly(Map.entry("", 3L));
	}

	@Test
	void readsOnlyTheDataFieldSpelledExactly() {
		String body = """
				Data: {"n": 1}
				datum: {"n": 2}
				dat: {"n": 3}
				data : {"n": 4}
				 data: {"n": 5}
				:data: {"n": 6}
				id: {"n": 7}
				retry: 8
				event: {"n": 9}

				data: {"m": 10}

				""";
		Read read = events(body, "/n", "/m");
		assertThat(read.numbers()).containsExactly(Map.entry("/m", 10L));
		assertThat(read.unreadable()).isEqualTo(Unreadable.NOT_FOUND);
	}

	@Test
	void skipsEventsWhoseDataIsNotJson() {
		String body = """
				data: {"n": 1}

				data: [DONE]

				data: {"n": 2

				data: hello

				data: {"n": 3} {"n": 4}

				data:

				data

				""";
		assertThat(events(body, "/n").numbers()).containsExactly(Map.entry("/n", 1L));
	}

	@Test
	void saysWhatTheEventsHadWhenNoneHadANumber() {
		assertThat(events("data: {\"n\": \"x\"}\n\ndata: {}\n\n", "/n").unreadable())
			.isEqualTo(Unreadable.NOT_A_NUMBER);
		assertThat(events("data: {\"n\": 1e999}\n\ndata: {}\n\n", "/n").unreadable())
			.isEqualTo(Unreadable.TOO_LARGE);
		assertThat(events("data: {}\n\ndata: [DONE]\n\n", "/n").unreadable()).isEqualTo(Unreadable.NOT_FOUND);
		assertThat(events("", "/n").unreadable()).isEqualTo(Unreadable.NOT_FOUND);
		assertThat(events(": only comments\n\n", "/n").unreadable()).isEqualTo(Unreadable.NOT_FOUND);
	}

	@Test
	void doesNotDispatchTheEventTheStreamEndsInBeforeItsBlankLine() {
		assertThat(events("data: {\"n\": 1}\n\ndata: {\"n\": 2}\n", "/n").numbers())
			.containsExactly(Map.entry("/n", 1L));
		assertThat(events("data: {\"n\": 1}\n\ndata: {\"n\": 2}", "/n").numbers())
			.containsExactly(Map.entry("/n", 1L));
		assertThat(events("data: {\"n\": 2}\r\n\r", "/n").numbers()).containsExactly(Map.entry("/n", 2L));
	}

	@Test
	void ignoresAByteOrderMarkAtTheStart() {
		byte[] mark = { (byte) 0xEF, (byte) 0xBB, (byte) 0xBF };
		byte[] body = BodyNumbersEncodingTests.concat(mark, utf8("data: {\"n\": 1}\n\n"));
		assertThat(BodyChunks.read(EVENT_STREAM, null, body, "/n").numbers()).containsExactly(Map.entry("/n", 1L));
		byte[] half = BodyNumbersEncodingTests.concat(new byte[] { (byte) 0xEF, (byte) 0xBB },
				utf8("data: {\"n\": 1}\n\ndata: {\"m\": 2}\n\n"));
		assertThat(BodyChunks.read(EVENT_STREAM, null, half, "/n", "/m").numbers())
			.containsExactly(Map.entry("/m", 2L));
	}

	@Test
	void readsEventStreamMediaTypesWithParameters() {
		assertThat(BodyChunks.read("Text/Event-Stream; charset=utf-8", null, utf8(OPENAI), TOTAL).numbers())
			.containsExactly(Map.entry(TOTAL, 29L));
	}

	@Test
	void readsTenMegabytesOfEventsForTheLastUsage() {
		StringBuilder body = new StringBuilder();
		String chunk = "data: {\"choices\":[{\"delta\":{\"content\":\"caf\u00e9 \\\"\\u00e9\\\"\"}}],\"usage\":null}\r\n\r\n"
				+ ": keep-alive\n\nevent: delta\nid: 1\ndata: {\"choices\": [],\ndata:  \"usage\": {\"total_tokens\": 3}}\n\n";
		while (body.length() < 10_000_000) {
			body.append(chunk);
		}
		body.append("data: {\"usage\":{\"total_tokens\":12345}}\n\ndata: [DONE]\n\n");
		Read read = BodyChunks.readInChunks(EVENT_STREAM, null, utf8(body.toString()), 8192, TOTAL);
		assertThat(read.numbers()).containsExactly(Map.entry(TOTAL, 12345L));
		Read gzipped = BodyChunks.readInChunks(EVENT_STREAM, "gzip",
				BodyNumbersEncodingTests.gzip(utf8(body.toString())), 8192, TOTAL);
		assertThat(gzipped).isEqualTo(read);
	}

}
