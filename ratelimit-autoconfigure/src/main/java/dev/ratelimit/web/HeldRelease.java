package dev.ratelimit.web;

import java.time.Duration;

import dev.ratelimit.algorithm.Nanos;
import dev.ratelimit.store.Settlement;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * How a route's judge holds a request a shaping limit admitted for later: on a timer,
 * in one of this node's places for held requests, for the longest hold any of the
 * route's policies asks. It is the first half of settling a decision after the fact: a
 * held request that never goes on has each policy give back what it took, once
 * ({@link Settlement#neverForwarded}: its units and its slots), through its
 * {@link RouteSettler}; one that goes on is settled by its exchange
 * ({@link ExchangeSettlement}), through the same settlers.
 */
final class HeldRelease {

	private final HeldRequests held;

	HeldRelease(HeldRequests held) {
		this.held = held;
	}

	/**
	 * Take one of this node's places for a held request.
	 * @return whether there was one; if so, {@link #hold} gives it back
	 */
	boolean tryTake() {
		return this.held.tryHold();
	}

	/**
	 * The most requests this node holds at once.
	 */
	int max() {
		return this.held.max();
	}

	/**
	 * {@code then} once {@code delayNanos} have passed, in the place {@link #tryTake}
	 * took, given back when the timer ends. Cancelled before then (the client went away),
	 * or failing to wait, the request never goes on: {@code neverForwarded} gives back,
	 * once, what its decisions took, so that later requests are admitted sooner.
	 */
	<T> Mono<T> hold(Mono<T> then, long delayNanos, Runnable neverForwarded) {
		return Mono.delay(Duration.ofNanos(delayNanos)).doFinally((signal) -> {
			this.held.release();
			if (signal != SignalType.ON_COMPLETE) {
				neverForwarded.run();
			}
		}).then(then);
	}

	/**
	 * When to come back to a node whose places for held requests are all taken: when the
	 * request would have been released, by which time the requests held before it have
	 * been.
	 */
	static long retryAfterWhenFull(long delayNanos) {
		return Math.max(1, Nanos.ceilSeconds(delayNanos));
	}

}
