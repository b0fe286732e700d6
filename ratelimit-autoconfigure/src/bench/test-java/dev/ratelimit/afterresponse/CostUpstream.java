package dev.ratelimit.afterresponse;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * An upstream that reports what each request cost, as an LLM endpoint reports its token
 * usage: a cost drawn uniformly from 1 to {@code maxCost}, after {@code delay} (the
 * time it spends answering), in the {@value #COST_HEADER} header of a path under
 * {@code /header/} and at {@code /usage/total_tokens} of a JSON body of
 * {@code bodyBytes} under any other path. Counts the responses and the costs it
 * reported.
 */
final class CostUpstream implements AutoCloseable {

	static final String COST_HEADER = "X-Token-Usage";

	private final AtomicLong responses = new AtomicLong();

	private final AtomicLong reported = new AtomicLong();

	private final LoopResources loops = LoopResources.create("cost-upstream", 1, true);

	private final DisposableServer server;

	CostUpstream(long maxCost, Duration delay, int bodyBytes) {
		this.server = HttpServer.create().runOn(this.loops).host("127.0.0.1").port(0).handle((request, response) -> {
			long cost = ThreadLocalRandom.current().nextLong(1, maxCost + 1);
			this.responses.incrementAndGet();
			this.reported.addAndGet(cost);
			boolean header = request.uri().startsWith("/header/");
			byte[] body = header ? "{\"ok\":true}".getBytes(StandardCharsets.UTF_8) : json(cost, bodyBytes);
			if (header) {
				response.header(COST_HEADER, Long.toString(cost));
			}
			Mono<Void> answer = response.header("Content-Type", "application/json")
				.header("Content-Length", Integer.toString(body.length))
				.sendByteArray(Mono.just(body))
				.then();
			return delay.isZero() ? answer : Mono.delay(delay).then(answer);
		}).bindNow();
	}

	/**
	 * A chat completion of at least {@code bytes}, its usage last.
	 */
	static byte[] json(long cost, int bytes) {
		String head = "{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
				+ "\"message\":{\"role\":\"assistant\",\"content\":\"";
		String tail = "\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":0,\"completion_tokens\":" + cost
				+ ",\"total_tokens\":" + cost + "}}";
		String content = "x".repeat(Math.max(0, bytes - head.length() - tail.length()));
		return (head + content + tail).getBytes(StandardCharsets.UTF_8);
	}

	String uri() {
		return "http://127.0.0.1:" + this.server.port();
	}

	long responses() {
		return this.responses.get();
	}

	long reported() {
		return this.reported.get();
	}

	@Override
	public void close() {
		this.server.disposeNow();
		this.loops.dispose();
	}

}
