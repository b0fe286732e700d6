package dev.ratelimit.shaping;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * Sends a traffic pattern's requests at their instants, each to every arm, and records
 * when each was sent and what it was answered. Connections are pooled without a bound
 * that matters, so that a burst goes out at once rather than queued behind a pool.
 */
final class LoadClient implements AutoCloseable {

	/**
	 * What a request that got no answer is recorded as.
	 */
	static final int NO_ANSWER = -1;

	private final LoopResources loops = LoopResources.create("client", 1, true);

	private final ConnectionProvider connections = ConnectionProvider.builder("shaping-bench")
		.maxConnections(20_000)
		.pendingAcquireMaxCount(-1)
		.build();

	private final HttpClient client = HttpClient.create(this.connections)
		.runOn(this.loops)
		.responseTimeout(Duration.ofSeconds(30));

	/**
	 * Open connections and compile the path to every gateway: many concurrent requests
	 * to a route no limit refuses, {@code concurrency} at a time.
	 */
	void warmUp(List<Integer> ports, String path, int requests, int concurrency) {
		Flux.range(0, requests)
			.flatMap((i) -> status(ports.get(i % ports.size()), path, null), concurrency)
			.blockLast(Duration.ofMinutes(2));
	}

	/**
	 * Send the traffic to every arm: at each offset one request per arm, request
	 * {@code offset index * arms + arm index}, to the arm's gateways in turn.
	 */
	Sent send(Traffic traffic, List<Arm> arms) throws InterruptedException {
		int requests = traffic.offsetsNanos().length * arms.size();
		long[] sentNanos = new long[requests];
		AtomicIntegerArray statuses = new AtomicIntegerArray(requests);
		CountDownLatch answered = new CountDownLatch(requests);
		// A little ahead, so that the first instant is not already late.
		long start = System.nanoTime() + 200_000_000L;
		for (int i = 0; i < traffic.offsetsNanos().length; i++) {
			long due = start + traffic.offsetsNanos()[i];
			for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
				LockSupport.parkNanos(wait);
			}
			for (int a = 0; a < arms.size(); a++) {
				Arm arm = arms.get(a);
				int request = i * arms.size() + a;
				sentNanos[request] = System.nanoTime();
				status(arm.ports().get(i % arm.ports().size()), arm.path(), request).subscribe(
						(status) -> statuses.set(request, status), (error) -> {
							statuses.set(request, NO_ANSWER);
							answered.countDown();
						}, answered::countDown);
			}
		}
		if (!answered.await(traffic.lengthNanos() + TimeUnit.MINUTES.toNanos(1), TimeUnit.NANOSECONDS)) {
			throw new IllegalStateException(answered.getCount() + " requests of " + requests + " still unanswered");
		}
		int[] answers = new int[requests];
		for (int i = 0; i < requests; i++) {
			answers[i] = statuses.get(i);
		}
		return new Sent(start, sentNanos, answers);
	}

	private Mono<Integer> status(int port, String path, Integer request) {
		return this.client.headers((headers) -> {
			headers.add("X-Client", "bench-client");
			if (request != null) {
				headers.add(ArrivalUpstream.REQUEST_HEADER, request.toString());
			}
		})
			.get()
			.uri("http://127.0.0.1:" + port + "/" + path + "/r")
			.responseSingle((response, body) -> body.then(Mono.just(response.status().code())));
	}

	@Override
	public void close() {
		this.connections.dispose();
		this.loops.dispose();
	}

	/**
	 * One policy's share of a run: its route, on one gateway or several.
	 *
	 * @param name what the arm is, for tables and charts
	 * @param path the route's first path segment
	 * @param ports the gateways, sent to in turn
	 */
	record Arm(String name, String path, List<Integer> ports) {
	}

	/**
	 * What was sent: when the run started, when each request was sent, and its answer's
	 * status ({@link #NO_ANSWER} for none).
	 */
	record Sent(long startNanos, long[] sentNanos, int[] statuses) {
	}

}
