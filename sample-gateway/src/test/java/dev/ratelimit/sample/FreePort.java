package dev.ratelimit.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/**
 * A port nothing listens on now, for a server the test starts on a port it must know
 * in advance (the sample's routes forward to its own port).
 */
final class FreePort {

	private FreePort() {
	}

	static int find() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
