package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The background probe that tells a store's guard once Redis answers again, so that a
 * store nobody sends requests to is healthy again too: every interval while the store is
 * not up, one {@code ping} (never two at once). While the store is up a tick reads the
 * guard's state and sends nothing. Runs on Reactor's shared parallel scheduler: no thread
 * of its own, and nothing left running once {@link #stop()}.
 */
final class RecoveryProbe {

	private final Duration interval;

	private final RemoteFailureGuard guard;

	private final AtomicReference<@Nullable Disposable> probing = new AtomicReference<>();

	RecoveryProbe(Duration interval, RemoteFailureGuard guard) {
		if (interval.isZero() || interval.isNegative()) {
			throw new IllegalArgumentException("probe interval must be positive but was " + interval);
		}
		this.interval = interval;
		this.guard = guard;
	}

	/**
	 * @param ping a call to Redis bounded by its own timeout, subscribed once per probe
	 * (so built anew on each subscription, for example by {@link Mono#defer})
	 */
	void start(Mono<Void> ping) {
		Disposable task = Flux.interval(this.interval, this.interval)
			.onBackpressureDrop()
			.concatMap((tick) -> this.guard.up() ? Mono.empty() : probe(ping), 1)
			.subscribe();
		Disposable previous = this.probing.getAndSet(task);
		if (previous != null) {
			previous.dispose();
		}
	}

	/**
	 * Stops the probe, a PING in flight included.
	 */
	void stop() {
		Disposable task = this.probing.getAndSet(null);
		if (task != null) {
			task.dispose();
		}
	}

	boolean running() {
		return this.probing.get() != null;
	}

	private Mono<Void> probe(Mono<Void> ping) {
		return ping.doOnSuccess((unused) -> this.guard.onSuccess()).onErrorResume((failure) -> {
			this.guard.recordFailure(failure);
			return Mono.empty();
		});
	}

}
