package dev.ratelimit.store.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import redis.embedded.RedisServer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A real Redis for tests: an embedded server on a free port, or the one named by the
 * {@code RATELIMIT_TEST_REDIS_URL} environment variable (for example
 * {@code redis://localhost:6379}); tests that stop and restart Redis need the embedded
 * one.
 */
final class TestRedis implements AutoCloseable {

	static final String URL_VARIABLE = "RATELIMIT_TEST_REDIS_URL";

	private final String host;

	private final int port;

	private final RedisServer server;

	private LettuceConnectionFactory connectionFactory;

	private final List<LettuceConnectionFactory> nodeConnectionFactories = new ArrayList<>();

	private TestRedis(String host, int port, RedisServer server) {
		this.host = host;
		this.port = port;
		this.server = server;
	}

	/**
	 * The external Redis when configured, else a started embedded one.
	 */
	static TestRedis start() {
		String url = System.getenv(URL_VARIABLE);
		if (url != null && !url.isBlank()) {
			URI uri = URI.create(url);
			return new TestRedis(uri.getHost(), (uri.getPort() > 0) ? uri.getPort() : 6379, null);
		}
		return startEmbedded();
	}

	/**
	 * A started embedded Redis, which {@link #stop()} and {@link #restart()} control.
	 */
	static TestRedis startEmbedded() {
		int port = freePort();
		try {
			RedisServer server = RedisServer.newRedisServer()
				.port(port)
				.bind("127.0.0.1")
				.setting("save \"\"")
				.setting("appendonly no")
				.build();
			server.start();
			return new TestRedis("127.0.0.1", port, server);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	String host() {
		return this.host;
	}

	int port() {
		return this.port;
	}

	/**
	 * The properties of a gateway whose policies' buckets live in this Redis.
	 */
	List<String> storeProperties() {
		return List.of("ratelimit.store=redis", "spring.data.redis.host=" + this.host,
				"spring.data.redis.port=" + this.port);
	}

	/**
	 * A template on its own connection factory, closed with this Redis.
	 */
	ReactiveStringRedisTemplate template() {
		return new ReactiveStringRedisTemplate(connectionFactory());
	}

	/**
	 * A blocking template on the same connection factory, for tests that make hundreds of
	 * thousands of calls only to compare replies: Lettuce's reactive publisher of a
	 * multi-element reply can lose its subscriber's demand under heavy CPU contention
	 * (lettuce issue 3232, open), and a {@code block()} on it then waits forever. Seen
	 * here once, in a run of the lean scripts' equivalence test beside two busy loops: Redis
	 * had answered and Lettuce's event loop was idle.
	 */
	StringRedisTemplate blockingTemplate() {
		StringRedisTemplate template = new StringRedisTemplate(connectionFactory());
		template.afterPropertiesSet();
		return template;
	}

	private LettuceConnectionFactory connectionFactory() {
		if (this.connectionFactory == null) {
			this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(this.host, this.port));
			this.connectionFactory.afterPropertiesSet();
			this.connectionFactory.start();
		}
		return this.connectionFactory;
	}

	/**
	 * A template on a connection of its own, as a separate gateway node has.
	 */
	ReactiveStringRedisTemplate nodeTemplate() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.host, this.port));
		factory.afterPropertiesSet();
		factory.start();
		this.nodeConnectionFactories.add(factory);
		return new ReactiveStringRedisTemplate(factory);
	}

	/**
	 * Whether Redis's script cache holds each of {@code scripts} (their sources).
	 */
	List<Boolean> cached(List<String> scripts) {
		String[] shas = scripts.stream().map((script) -> RedisScript.of(script).getSha1()).toArray(String[]::new);
		return blockingTemplate()
			.execute((RedisCallback<List<Boolean>>) (connection) -> connection.scriptingCommands().scriptExists(shas));
	}

	/**
	 * Empties Redis's script cache, as a restart of Redis does.
	 */
	void flushScripts() {
		blockingTemplate().execute((RedisCallback<Void>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});
	}

	void flushAll() {
		template().execute((connection) -> connection.serverCommands().flushAll()).blockLast();
	}

	void stop() {
		try {
			requireEmbedded().stop();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	void restart() {
		try {
			requireEmbedded().start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private RedisServer requireEmbedded() {
		if (this.server == null) {
			throw new IllegalStateException("stopping Redis needs the embedded server; unset " + URL_VARIABLE);
		}
		return this.server;
	}

	@Override
	public void close() {
		if (this.connectionFactory != null) {
			this.connectionFactory.destroy();
		}
		this.nodeConnectionFactories.forEach(LettuceConnectionFactory::destroy);
		if (this.server != null && this.server.isActive()) {
			stop();
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
