package dev.ratelimit.testsupport;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class NettyLeakGuardTests {

	@Test
	void reportsABufferDroppedWithoutRelease() throws InterruptedException {
		NettyLeakGuard.dropUnreleased("dropped by reportsABufferDroppedWithoutRelease.");

		assertThat(NettyLeakGuard.collectLeaks()).singleElement()
			.asString()
			.contains("dropped by reportsABufferDroppedWithoutRelease.");
	}

	@Test
	void reportsNoBufferThatWasReleased() throws InterruptedException {
		useAndRelease("released by reportsNoBufferThatWasReleased.");

		assertThat(NettyLeakGuard.collectLeaks()).noneMatch((leak) -> leak.contains("reportsNoBufferThatWasReleased"));
	}

	/**
	 * In a method of its own, so that the buffer is unreachable after it, as a leaked
	 * one would be.
	 */
	private static void useAndRelease(String hint) {
		ByteBuf buffer = NettyLeakGuard.allocateMarked(hint);
		buffer.writeByte(42);
		buffer.release();
	}

}
