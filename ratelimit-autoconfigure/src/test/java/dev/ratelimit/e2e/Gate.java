package dev.ratelimit.e2e;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Where requests wait until the test lets them through: a slow upstream whose pace the
 * test sets, not a clock.
 */
public final class Gate {

	private final Queue<Sinks.Empty<Void>> waiting = new ConcurrentLinkedQueue<>();

	private final AtomicInteger arrived = new AtomicInteger();

	private volatile boolean open;

	/**
	 * Completes when the gate lets this one through: at once when it is open.
	 */
	Mono<Void> pass() {
		this.arrived.incrementAndGet();
		if (this.open) {
			return Mono.empty();
		}
		Sinks.Empty<Void> sink = Sinks.empty();
		this.waiting.add(sink);
		if (this.open) {
			sink.tryEmitEmpty();
		}
		// A request cancelled while it waits leaves, not to be let through in another's place.
		return sink.asMono().doOnCancel(() -> this.waiting.remove(sink));
	}

	/**
	 * How many requests have come to the gate, let through or not.
	 */
	public int arrived() {
		return this.arrived.get();
	}

	/**
	 * Let the longest waiting request through; {@code false} when none waits.
	 */
	public boolean releaseOne() {
		Sinks.Empty<Void> sink = this.waiting.poll();
		if (sink == null) {
			return false;
		}
		sink.tryEmitEmpty();
		return true;
	}

	/**
	 * Let every waiting request through, and every later one at once.
	 */
	public void open() {
		this.open = true;
		for (Sinks.Empty<Void> sink = this.waiting.poll(); sink != null; sink = this.waiting.poll()) {
			sink.tryEmitEmpty();
		}
	}

}
