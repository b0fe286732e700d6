package dev.ratelimit.web;

import java.time.Duration;

import dev.ratelimit.algorithm.Nanos;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.web.RequestJudge.TierOnRoute;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * How a route's judge holds a request a shaping limit admitted for later: on a timer,
 * in one of this node's places for held requests. It is the first half of settling a
 * decision after the fact: a held request that never goes on is settled here, once
 * ({@link Settlement#neverForwarded}: its units and its slots given back); one that goes
 * on is settled by its exchange ({@link ExchangeSettlement}), through the same
 * {@link RouteSettler}.
 */
final class HeldRelease {

	private final HeldRequests held;

	private final RouteSettler settler;

	HeldRelease(HeldRequests held, RouteSettler settler) {
		this.held = held;
		this.settler = settler;
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
	 * or failing to wait, the request never goes on: its units and slots are given back,
	 * once, so that later requests are admitted sooner.
	 * @param bucket the bucket that admitted the request
	 * @param taken the units its decision took
	 */
	<T> Mono<T> hold(Mono<T> then, BucketId bucket, TierOnRoute tier, long taken, long delayNanos) {
		long heldAt = MonotonicClock.SYSTEM.nanoTime();
		return Mono.delay(Duration.ofNanos(delayNanos)).doFinally((signal) -> {
			this.held.release();
			if (signal != SignalType.ON_COMPLETE) {
				giveBack(bucket, tier, taken, MonotonicClock.SYSTEM.nanoTime() - heldAt);
			}
		}).then(then);
	}

	/**
	 * Give back what a request admitted {@code heldNanos} ago took, which never went on.
	 */
	void giveBack(BucketId bucket, TierOnRoute tier, long taken, long heldNanos) {
		this.settler.settleLater(bucket, tier, Settlement.neverForwarded(taken, heldNanos));
	}

	/**
	 * When to come back to a node whose places for held requests are all taken: when the
	 * request would have been released, by which time the requests held before it have
	 * been.
	 */
	static long retryAfterWhenFull(Verdict verdict) {
		return Math.max(1, Nanos.ceilSeconds(verdict.delayNanos()));
	}

}
