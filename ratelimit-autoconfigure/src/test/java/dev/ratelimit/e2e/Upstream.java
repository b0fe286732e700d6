package dev.ratelimit.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPOutputStream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.resources.LoopResources;

/**
 * A real HTTP server the gateway routes to; it counts the requests that reach it, per
 * path and query as the gateway forwarded them, and records when each arrived. A path
 * answers {@code {"path":...}} with 200, unless a test has given its prefix a
 * {@link Reply} of its own ({@link #answer}): a status, headers, a JSON, gzip or event
 * stream body, an answer that waits for a {@link Gate} or never comes, a reset.
 */
public final class Upstream implements AutoCloseable {

	private final Map<String, AtomicInteger> hits = new ConcurrentHashMap<>();

	private final Queue<Arrival> arrivals = new ConcurrentLinkedQueue<>();

	/**
	 * Its own event loops: a gateway context that closes disposes the global ones.
	 */
	private final LoopResources loops = LoopResources.create("upstream", 1, true);

	private final List<Answer> answers = new CopyOnWriteArrayList<>();

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
				for (Answer answer : this.answers) {
					if (request.uri().startsWith(answer.prefix())) {
						return answer.reply().send(request, response);
					}
				}
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
	 * Answer the requests whose path and query start with {@code prefix} with
	 * {@code reply}; the first prefix given that matches answers.
	 */
	public Upstream answer(String prefix, Reply reply) {
		this.answers.add(new Answer(prefix, reply));
		return this;
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

	/**
	 * {@code body} as JSON with {@code status} and the {@code headers}, given as name and
	 * value pairs.
	 */
	public static Reply json(int status, String body, String... headers) {
		return bytes(status, "application/json", body.getBytes(StandardCharsets.UTF_8), headers);
	}

	/**
	 * {@code body} as JSON, gzip-encoded ({@code Content-Encoding: gzip}).
	 */
	public static Reply gzipJson(String body) {
		return bytes(200, "application/json", gzip(body.getBytes(StandardCharsets.UTF_8)), "Content-Encoding",
				"gzip");
	}

	public static Reply bytes(int status, String contentType, byte[] body, String... headers) {
		return (request, response) -> {
			response.status(status).header("Content-Type", contentType);
			for (int i = 0; i < headers.length; i += 2) {
				response.header(headers[i], headers[i + 1]);
			}
			return response.sendByteArray(Mono.just(body));
		};
	}

	/**
	 * A {@code text/event-stream} written as a stream: each event (its whole text, such
	 * as {@code "data: {}\n\n"}) flushed on its own, those {@code after} only once
	 * {@code gate} has let the request through.
	 */
	public static Reply eventStream(List<String> before, Gate gate, List<String> after) {
		return (request, response) -> response.header("Content-Type", "text/event-stream")
			.send(Flux.fromIterable(before)
				.map(Upstream::buffer)
				.concatWith(gate.pass().thenMany(Flux.fromIterable(after).map(Upstream::buffer))), (buffer) -> true);
	}

	/**
	 * No answer at all: the request stays open until the gateway gives up on it.
	 */
	public static Reply never() {
		return (request, response) -> Mono.never();
	}

	/**
	 * The connection reset (TCP RST) before any response.
	 */
	public static Reply reset() {
		return (request, response) -> {
			reset(response);
			return Mono.never();
		};
	}

	/**
	 * Reset {@code response}'s connection (TCP RST, SO_LINGER 0).
	 */
	public static void reset(HttpServerResponse response) {
		response.withConnection((connection) -> {
			connection.channel().config().setOption(ChannelOption.SO_LINGER, 0);
			connection.channel().close();
		});
	}

	static byte[] gzip(byte[] bytes) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		try (GZIPOutputStream zip = new GZIPOutputStream(out)) {
			zip.write(bytes);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return out.toByteArray();
	}

	private static ByteBuf buffer(String text) {
		return Unpooled.copiedBuffer(text, StandardCharsets.UTF_8);
	}

	/**
	 * How a path is answered.
	 */
	@FunctionalInterface
	public interface Reply {

		Publisher<Void> send(HttpServerRequest request, HttpServerResponse response);

		/**
		 * This reply, once {@code gate} lets the request through.
		 */
		default Reply after(Gate gate) {
			return (request, response) -> gate.pass().then(Mono.defer(() -> Mono.from(send(request, response))));
		}

	}

	private record Arrival(String uri, long nanos) {
	}

	private record Answer(String prefix, Reply reply) {
	}

}
