package dev.ratelimit.e2e;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * A real HTTP server the gateway routes to, recording when each request reached it
 * (by {@link System#nanoTime()}), for tests of when a gateway forwards requests.
 */
public final class RecordingUpstream implements AutoCloseable {

	private final Queue<Arrival> arrivals = new ConcurrentLinkedQueue<>();

	/**
	 * Its own event loops: a gateway context that closes disposes the global ones.
	 */
	private final LoopResources loops = LoopResources.create("recording-upstream", 1, true);

	private final DisposableServer server;

	private RecordingUpstream() {
		this.server = HttpServer.create().runOn(this.loops).host("127.0.0.1").port(0).handle((request, response) -> {
			this.arrivals.add(new Arrival(request.uri(), System.nanoTime()));
			return response.header("Content-Type", "text/plain").sendString(Mono.just("reached"));
		}).bindNow();
	}

	public static RecordingUpstream start() {
		return new RecordingUpstream();
	}

	public String uri() {
		return "http://127.0.0.1:" + this.server.port();
	}

	/**
	 * When the requests whose path and query start with {@code prefix} arrived, in
	 * order.
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
