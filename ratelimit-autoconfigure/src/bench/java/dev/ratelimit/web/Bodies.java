package dev.ratelimit.web;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPOutputStream;

import dev.ratelimit.policy.JsonPointer;
import org.jspecify.annotations.Nullable;

/**
 * The response bodies the cost-reading measurements read: an OpenAI-style chat
 * completion (a JSON document whose {@code usage} comes last) and its streamed form (an
 * event stream of one small chunk per token, {@code usage} in the last event before
 * {@code [DONE]}), each of an exact size, cut into direct buffers of 8 KB as Netty's
 * pooled allocator hands them to the response.
 */
enum Bodies {

	JSON("application/json", null),
	EVENT_STREAM("text/event-stream", null),
	/** The JSON document gzip-coded; its size is the decoded size. */
	JSON_GZIP("application/json", "gzip");

	static final int CHUNK = 8 * 1024;

	static final long TOTAL_TOKENS = 4321;

	static final List<JsonPointer> POINTERS = List.of(JsonPointer.parse("/usage/total_tokens"));

	private static final String CONTENT = "The quick brown fox jumps over the lazy dog, and the lazy dog, "
			+ "unbothered, watches it land on the other side of the fence.";

	private final String contentType;

	private final @Nullable String contentEncoding;

	Bodies(String contentType, @Nullable String contentEncoding) {
		this.contentType = contentType;
		this.contentEncoding = contentEncoding;
	}

	String contentType() {
		return this.contentType;
	}

	@Nullable String contentEncoding() {
		return this.contentEncoding;
	}

	static Bodies named(String name) {
		return valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
	}

	/**
	 * The body as it travels, {@code size} bytes before any content coding.
	 */
	byte[] bytes(int size) {
		return switch (this) {
			case JSON -> json(size);
			case EVENT_STREAM -> eventStream(size);
			case JSON_GZIP -> gzip(json(size));
		};
	}

	ByteBuffer[] chunks(int size) {
		return cut(bytes(size));
	}

	static ByteBuffer[] cut(byte[] body) {
		ByteBuffer[] chunks = new ByteBuffer[(body.length + CHUNK - 1) / CHUNK];
		for (int i = 0; i < chunks.length; i++) {
			int from = i * CHUNK;
			int length = Math.min(CHUNK, body.length - from);
			chunks[i] = ByteBuffer.allocateDirect(length).put(body, from, length).flip();
		}
		return chunks;
	}

	private static byte[] json(int size) {
		String head = "{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion\",\"model\":\"bench\",\"choices\":[";
		String tail = "],\"usage\":{\"prompt_tokens\":21,\"completion_tokens\":" + (TOTAL_TOKENS - 21)
				+ ",\"total_tokens\":" + TOTAL_TOKENS + "}}";
		StringBuilder body = new StringBuilder(size).append(head);
		for (int index = 0;; index++) {
			String choice = choice(index, CONTENT);
			int room = size - body.length() - tail.length() - ((index > 0) ? 1 : 0);
			if (room < 2 * choice.length()) {
				int padding = room - choice(index, "").length();
				if (index > 0) {
					body.append(',');
				}
				body.append(choice(index, filler(padding)));
				break;
			}
			if (index > 0) {
				body.append(',');
			}
			body.append(choice);
		}
		return exact(body.append(tail), size);
	}

	private static String choice(int index, String content) {
		return "{\"index\":" + index + ",\"message\":{\"role\":\"assistant\",\"content\":\"" + content
				+ "\"},\"logprobs\":null,\"finish_reason\":\"stop\"}";
	}

	private static byte[] eventStream(int size) {
		String last = "data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"choices\":[],"
				+ "\"usage\":{\"prompt_tokens\":21,\"completion_tokens\":" + (TOTAL_TOKENS - 21) + ",\"total_tokens\":"
				+ TOTAL_TOKENS + "}}\n\ndata: [DONE]\n\n";
		StringBuilder body = new StringBuilder(size);
		String[] words = CONTENT.split(" ");
		for (int word = 0;; word++) {
			String chunk = delta(words[word % words.length] + " ");
			int room = size - body.length() - last.length();
			if (room < 2 * chunk.length()) {
				body.append(delta(filler(room - delta("").length())));
				break;
			}
			body.append(chunk);
		}
		return exact(body.append(last), size);
	}

	private static String delta(String content) {
		return "data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
				+ "\"delta\":{\"content\":\"" + content + "\"},\"finish_reason\":null}]}\n\n";
	}

	private static String filler(int length) {
		StringBuilder filler = new StringBuilder(Math.max(length, 0));
		while (filler.length() < length) {
			filler.append(CONTENT, 0, Math.min(CONTENT.length(), length - filler.length()));
		}
		return filler.toString();
	}

	private static byte[] exact(CharSequence text, int size) {
		byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
		if (bytes.length != size) {
			throw new IllegalStateException("a body of " + bytes.length + " bytes, not " + size);
		}
		return bytes;
	}

	private static byte[] gzip(byte[] body) {
		ByteArrayOutputStream coded = new ByteArrayOutputStream();
		try (GZIPOutputStream out = new GZIPOutputStream(coded)) {
			out.write(body);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return coded.toByteArray();
	}

	/**
	 * The reader's answer for the whole body, which must be {@link #TOTAL_TOKENS}.
	 */
	Number read(ByteBuffer[] chunks) {
		BodyNumbers numbers = BodyNumbers.of(this.contentType, this.contentEncoding, POINTERS);
		for (ByteBuffer chunk : chunks) {
			numbers.accept(chunk);
		}
		numbers.finish();
		return numbers.numbers().get("/usage/total_tokens");
	}

	void check(ByteBuffer[] chunks) {
		Number read = read(chunks);
		if (read == null || read.longValue() != TOTAL_TOKENS) {
			throw new IllegalStateException(this + " read " + read + ", not " + TOTAL_TOKENS);
		}
	}

}
