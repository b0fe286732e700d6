package dev.ratelimit.shaping;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

import redis.embedded.RedisServer;

/**
 * The embedded Redis the tests use, on a free port of the loopback interface, without
 * persistence.
 */
public final class EmbeddedRedis implements AutoCloseable {

	private final RedisServer server;

	private final int port;

	public EmbeddedRedis() {
		try (ServerSocket socket = new ServerSocket(0)) {
			this.port = socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		try {
			this.server = RedisServer.newRedisServer()
				.port(this.port)
				.bind("127.0.0.1")
				.setting("save \"\"")
				.setting("appendonly no")
				.build();
			this.server.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	public int port() {
		return this.port;
	}

	@Override
	public void close() {
		try {
			this.server.stop();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
