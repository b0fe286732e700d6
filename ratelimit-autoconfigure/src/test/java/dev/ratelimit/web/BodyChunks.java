package dev.ratelimit.web;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import dev.ratelimit.policy.JsonPointer;
import dev.ratelimit.web.BodyNumbers.Unreadable;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Feeds a body to {@link BodyNumbers} cut into buffers in many ways, each buffer a
 * window into a larger one (heap, direct or read-only), and checks that every cutting
 * reads the same and that no buffer's position or limit moved.
 */
final class BodyChunks {

	/**
	 * Bodies up to this size are also read cut at every single point.
	 */
	private static final int EVERY_SPLIT = 3000;

	private static final int RANDOM_CUTTINGS = 12;

	/**
	 * What a body read to.
	 */
	record Read(Map<String, Number> numbers, @Nullable Unreadable unreadable) {

		@Nullable Number number(String pointer) {
			return this.numbers.get(pointer);
		}

	}

	private BodyChunks() {
	}

	static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Reads the body whole, byte by byte, cut at every point (when small) and cut at
	 * random, and checks that every one reads as the whole does.
	 * @return what the body read to
	 */
	static Read read(@Nullable String contentType, @Nullable String contentEncoding, byte[] body,
			String... pointers) {
		Read whole = readCut(contentType, contentEncoding, body, new int[0], pointers);
		List<int[]> cuttings = new ArrayList<>();
		cuttings.add(everyByte(body.length));
		if (body.length <= EVERY_SPLIT) {
			for (int at = 1; at < body.length; at++) {
				cuttings.add(new int[] { at });
			}
		}
		Random random = new Random(body.length);
		for (int i = 0; i < RANDOM_CUTTINGS; i++) {
			cuttings.add(randomCuts(body.length, random));
		}
		for (int[] cuts : cuttings) {
			assertThat(readCut(contentType, contentEncoding, body, cuts, pointers))
				.as("cut at %s", (cuts.length > 20) ? cuts.length + " points" : Arrays.toString(cuts))
				.isEqualTo(whole);
		}
		return whole;
	}

	/**
	 * Reads the body in buffers of {@code size} bytes.
	 */
	static Read readInChunks(@Nullable String contentType, @Nullable String contentEncoding, byte[] body, int size,
			String... pointers) {
		int[] cuts = new int[Math.max(0, (body.length - 1) / size)];
		for (int i = 0; i < cuts.length; i++) {
			cuts[i] = (i + 1) * size;
		}
		return readCut(contentType, contentEncoding, body, cuts, pointers);
	}

	/**
	 * Reads the body cut at the given increasing points.
	 */
	static Read readCut(@Nullable String contentType, @Nullable String contentEncoding, byte[] body, int[] cuts,
			String... pointers) {
		BodyNumbers reader = BodyNumbers.of(contentType, contentEncoding,
				Arrays.stream(pointers).map(JsonPointer::parse).toList());
		int from = 0;
		for (int i = 0; i <= cuts.length; i++) {
			int to = (i < cuts.length) ? cuts[i] : body.length;
			ByteBuffer buffer = window(body, from, to, i);
			int position = buffer.position();
			int limit = buffer.limit();
			reader.accept(buffer);
			assertThat(buffer.position()).as("position").isEqualTo(position);
			assertThat(buffer.limit()).as("limit").isEqualTo(limit);
			from = to;
		}
		reader.finish();
		return new Read(reader.numbers(), reader.unreadable());
	}

	/**
	 * The bytes from {@code from} to {@code to}, between a buffer's position and limit,
	 * with bytes around them that would break any JSON text were they read.
	 */
	private static ByteBuffer window(byte[] body, int from, int to, int kind) {
		int length = to - from;
		ByteBuffer buffer = ((kind % 3) == 1) ? ByteBuffer.allocateDirect(length + 6) : ByteBuffer.allocate(length + 6);
		buffer.put(utf8("}]\""));
		buffer.put(body, from, length);
		buffer.put(utf8("\"[{"));
		buffer.position(3).limit(3 + length);
		return ((kind % 3) == 2) ? buffer.asReadOnlyBuffer() : buffer;
	}

	private static int[] everyByte(int length) {
		int[] cuts = new int[Math.max(0, length - 1)];
		for (int i = 0; i < cuts.length; i++) {
			cuts[i] = i + 1;
		}
		return cuts;
	}

	private static int[] randomCuts(int length, Random random) {
		List<Integer> cuts = new ArrayList<>();
		int at = 0;
		while (true) {
			at += 1 + random.nextInt(Math.max(1, length / 4));
			if (at >= length) {
				break;
			}
			cuts.add(at);
		}
		return cuts.stream().mapToInt(Integer::intValue).toArray();
	}

}
