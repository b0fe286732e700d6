package dev.ratelimit.shaping;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * The upstream of the measured gateways: answers every request at once and notes, for
 * each request that carries an {@value #REQUEST_HEADER} header, the instant it arrived
 * ({@link System#nanoTime()}, comparable with the client's in this JVM). Requests
 * without the header (the load generator's) are answered and not noted.
 */
final class ArrivalUpstream implements AutoCloseable {

	static final String REQUEST_HEADER = "X-Request";

	private final Map<Integer, Long> arrivals = new ConcurrentHashMap<>();

	private final AtomicInteger noted = new AtomicInteger();

	/**
	 * Its own event loop, so that closing a gateway's resources never stops it, and the
	 * arrival is noted on a thread no gateway delays.
	 */
	private final LoopResources loops = LoopResources.create("upstream", 1, true);

	private final DisposableServer server;

	ArrivalUpstream() {
		this.server = HttpServer.create().runOn(this.loops).host("127.0.0.1").port(0).handle((request, response) -> {
			String id = request.requestHeaders().get(REQUEST_HEADER);
			if (id != null) {
				this.arrivals.put(Integer.parseInt(id), System.nanoTime());
				this.noted.incrementAndGet();
			}
			return response.header("Content-Type", "text/plain")
				.header("Content-Length", "2")
				.sendString(Mono.just("ok"));
		}).bindNow();
	}

	String uri() {
		return "http://127.0.0.1:" + this.server.port();
	}

	/**
	 * When the request arrived, or {@code null} if it never did.
	 */
	Long arrival(int request) {
		return this.arrivals.get(request);
	}

	/**
	 * Requests noted, a request that arrived twice counted twice.
	 */
	int noted() {
		return this.noted.get();
	}

	void clear() {
		this.arrivals.clear();
		this.noted.set(0);
	}

	@Override
	public void close() {
		this.server.disposeNow();
		this.loops.dispose();
	}

}
