package dev.ratelimit.store.redis;

import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.scheduler.Schedulers;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * The stores' way to Redis: every call goes through {@link #onRedis(Flux)}, which never
 * blocks the thread subscribing to it while the connection opens.
 */
final class RedisConnection {

	private final ReactiveStringRedisTemplate redis;

	/**
	 * Whether a call was answered and none failed since, so the connection is open.
	 * Until then a call first waits for {@link #open()}. Once open, Lettuce reconnects
	 * in the background, so a call cut short by a timeout leaves this as it is: under
	 * load, waiting for the connection again would only add to the delay.
	 */
	private volatile boolean connected;

	/**
	 * The opening of the connection in progress or done, shared by every call that
	 * waits for it; cleared when it fails, so that the next call tries again.
	 */
	private final AtomicReference<@Nullable Mono<Void>> opening = new AtomicReference<>();

	RedisConnection(ReactiveStringRedisTemplate redis) {
		this.redis = redis;
	}

	ReactiveStringRedisTemplate template() {
		return this.redis;
	}

	/**
	 * A PING, opening the connection if it is not open.
	 */
	Mono<Void> ping() {
		return onRedis(this.redis.execute((connection) -> connection.ping())).then();
	}

	/**
	 * A call to Redis that never blocks the thread subscribing to it: while the
	 * connection is not known to be open, it waits for {@link #open()} first.
	 */
	<T> Flux<T> onRedis(Flux<T> call) {
		Flux<T> tracked = call.doFinally((signal) -> {
			if (signal == SignalType.ON_COMPLETE) {
				this.connected = true;
			}
			else if (signal == SignalType.ON_ERROR) {
				this.connected = false;
				this.opening.set(null);
			}
		});
		return this.connected ? tracked : open().thenMany(tracked);
	}

	/**
	 * Opens the connection on another thread, once for every call waiting for it.
	 * Spring Data opens the shared Lettuce connection synchronously in whichever thread
	 * first subscribes to a command, which is a request's event loop; against a Redis
	 * that accepts connections but does not answer, it waits for Lettuce's command
	 * timeout (a minute by default), out of reach of any Reactor timeout, with every
	 * other request of that event loop. Here one thread at most waits; a caller that
	 * gives up (a timeout) does not cancel the opening, so its outcome is still seen.
	 */
	private Mono<Void> open() {
		while (true) {
			Mono<Void> current = this.opening.get();
			if (current != null) {
				return current;
			}
			Mono<Void> attempt = Mono
				.<Void>fromRunnable(() -> this.redis.getConnectionFactory().getReactiveConnection().close())
				.subscribeOn(Schedulers.boundedElastic())
				.cache();
			if (this.opening.compareAndSet(null, attempt)) {
				attempt.subscribe(null, (failure) -> this.opening.compareAndSet(attempt, null));
				return attempt;
			}
		}
	}

}
