package dev.ratelimit.client;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * A real HTTP server that answers each request it receives with the next reply of its
 * script (the last one again once they run out) and counts the requests received.
 */
final class ScriptedServer implements AutoCloseable {

	/**
	 * Its own event loops, so that no other test's context disposes them.
	 */
	private final LoopResources loops = LoopResources.create("scripted-server", 1, true);

	private final List<Reply> replies;

	private final AtomicInteger received = new AtomicInteger();

	private final DisposableServer server;

	ScriptedServer(Reply... replies) {
		this.replies = List.of(replies);
		this.server = HttpServer.create().runOn(this.loops).host("127.0.0.1").port(0).handle((request, response) -> {
			int index = this.received.getAndIncrement();
			Reply reply = this.replies.get(Math.min(index, this.replies.size() - 1));
			response.status(reply.status());
			reply.headers().forEach(response::header);
			return response.sendString(Mono.just((reply.status() == 200) ? "done" : "refused"));
		}).bindNow();
	}

	String uri() {
		return "http://127.0.0.1:" + this.server.port();
	}

	int received() {
		return this.received.get();
	}

	@Override
	public void close() {
		this.server.disposeNow();
		this.loops.disposeLater().block();
	}

	record Reply(int status, Map<String, String> headers) {

		static Reply ok() {
			return new Reply(200, Map.of());
		}

		static Reply tooMany(String retryAfter) {
			return new Reply(429, Map.of("Retry-After", retryAfter, "RateLimit-Limit", "5", "RateLimit-Remaining", "0",
					"RateLimit-Reset", retryAfter));
		}

		static Reply lastOne(String reset) {
			return new Reply(200, Map.of("RateLimit-Limit", "5", "RateLimit-Remaining", "0", "RateLimit-Reset", reset));
		}

	}

}
