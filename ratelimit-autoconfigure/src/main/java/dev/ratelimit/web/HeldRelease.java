package dev.ratelimit.web;

import java.time.Duration;

import dev.ratelimit.algorithm.Nanos;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.support.ThrottledLog;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * How a route's judge holds a request a shaping limit admitted for later: on a timer,
 * in one of this node's places for held requests, and, should it never go on, with its
 * units given back to the store once.
 */
final class HeldRelease {

	private static final ThrottledLog giveBackFailures = new ThrottledLog(LogFactory.getLog(HeldRelease.class));

	private final HeldRequests held;

	private final BucketDecider store;

	private final String policyId;

	private final String routeId;

	HeldRelease(HeldRequests held, BucketDecider store, String policyId, String routeId) {
		this.held = held;
		this.store = store;
		this.policyId = policyId;
		this.routeId = routeId;
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
	 * or failing to wait, the request never goes on: its units are given back, once, so
	 * that later requests are admitted sooner.
	 * @param bucket the bucket that admitted the request
	 */
	<T> Mono<T> hold(Mono<T> then, BucketId bucket, Tier tier, long cost, long delayNanos) {
		long heldAt = MonotonicClock.SYSTEM.nanoTime();
		return Mono.delay(Duration.ofNanos(delayNanos)).doFinally((signal) -> {
			this.held.release();
			if (signal != SignalType.ON_COMPLETE) {
				giveBack(bucket, tier, cost, MonotonicClock.SYSTEM.nanoTime() - heldAt);
			}
		}).then(then);
	}

	/**
	 * Give back the units a request admitted {@code heldNanos} ago took, its store's
	 * failure to do so logged.
	 */
	void giveBack(BucketId bucket, Tier tier, long cost, long heldNanos) {
		this.store.settle(bucket, tier, Settlement.neverForwarded(cost, heldNanos))
			.subscribe(null, (error) -> giveBackFailures.warn(() -> "Rate limit store '" + this.store.name()
					+ "' could not give back the place of a held request of policy '" + this.policyId
					+ "' on route '" + this.routeId + "'", error));
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
