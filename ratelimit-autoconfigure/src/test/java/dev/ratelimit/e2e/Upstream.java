package dev.ratelimit.e2e;

import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * A real HTTP server the gateway routes to; it counts the requests that reach it, per
 * path and query as the gateway forwarded them, and records when each arrived.
 */
public final class Upstream implements AutoCloseable {

	private final Map<String, AtomicInteger> hits = new ConcurrentHashMap<>();

	private final Queue<Arrival> arrivals = new ConcurrentLinkedQueue<>();

	/**
	 * Its own event loops: a gateway context that closes disposes the global ones.
	 */
	private final LoopResources loops = LoopResources.create("upstream", 1, true);

	private final DisposableServer server;

	private Upstream() {
		this.server = HttpServer.create()
			.runOn(this.loops)
			.host("127.0.0.1")
			.port(0)
			.handle((request, response) -> {
				String path = request.fullPath();
				long arrived = System.nanoTime();
				this.hits.computeIfAbsent(request.uri(), (key) -> new AtomicInteger()).incrementAndGet();
				this.arrivals.add(new Arrival(request.uri(), arrived));
				return response.header("Content-Type", "application/json")
					.header("X-Upstream", "reached")
					.sendString(Mono.just("{\"path\":\"" + path + "\"}"));
			})
			.bindNow();
	}

	public static Upstream start() {
		return new Upstream();
	}

	public String uri() {
		return "http://127.0.0.1:" + this.server.port();
	}

	/**
	 * Requests that reached this server with the given path and query.
	 */
	public int hits(String pathAndQuery) {
		AtomicInteger count = this.hits.get(pathAndQuery);
		return (count != null) ? count.get() : 0;
	}

	/**
	 * When the requests whose path and query start with {@code prefix} reached this
	 * server, as {@link System#nanoTime()} read on their arrival, in order.
	 */
	public List<Long> arrivals(String prefix) {
		return this.arrivals.stream()
			.filter((arrival) -> arrival.uri().startsWith(prefix))
			.map(Arrival::nanos)
			.sorted()
			.toList();
	}

	@Override
	public void close() {
		this.server.disposeNow();
		this.loops.dispose();
	}

	private record Arrival(String uri, long nanos) {
	}

}
