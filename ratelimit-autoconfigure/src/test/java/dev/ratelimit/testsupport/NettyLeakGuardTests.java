package dev.ratelimit.testsupport;

import java.net.URL;
import java.net.URLClassLoader;

import io.netty.buffer.ByteBuf;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

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

	@Test
	void acceptsAClassLoaderThatLoadsTheGuardedNetty() throws Exception {
		try (URLClassLoader child = new URLClassLoader(new URL[0], getClass().getClassLoader())) {
			assertThat(NettyLeakGuard.requireGuarded(child)).isSameAs(child);
		}
	}

	@Test
	void refusesAClassLoaderThatLoadsNettyAgain() throws Exception {
		URL netty = ResourceLeakDetector.class.getProtectionDomain().getCodeSource().getLocation();
		try (URLClassLoader isolated = new URLClassLoader(new URL[] { netty }, ClassLoader.getPlatformClassLoader())) {
			assertThatIllegalStateException().isThrownBy(() -> NettyLeakGuard.requireGuarded(isolated))
				.withMessageContaining("loads a Netty of its own");
		}
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
