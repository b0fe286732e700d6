package dev.ratelimit.store.redis;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.support.MonotonicClock;

/**
 * Stops calling a failing remote: closed (calls go through) until
 * {@code failureThreshold} consecutive failures, then open (no calls) for
 * {@code openDurationNanos}, then half-open: one call probes, and its outcome closes
 * or reopens the breaker. Lock-free; a closed breaker costs one volatile read per call.
 */
public final class CircuitBreaker {

	/**
	 * The breaker's states, named as in health details.
	 */
	public enum State {

		CLOSED("closed"), OPEN("open"), HALF_OPEN("half-open");

		private final String displayName;

		State(String displayName) {
			this.displayName = displayName;
		}

		public String displayName() {
			return this.displayName;
		}

	}

	private final MonotonicClock clock;

	private final int failureThreshold;

	private final long openDurationNanos;

	private final AtomicReference<State> state = new AtomicReference<>(State.CLOSED);

	private final AtomicInteger consecutiveFailures = new AtomicInteger();

	/**
	 * When the breaker opened, or when the half-open probe started.
	 */
	private final AtomicLong since = new AtomicLong();

	public CircuitBreaker(MonotonicClock clock, int failureThreshold, long openDurationNanos) {
		if (failureThreshold < 1) {
			throw new IllegalArgumentException("failure threshold must be at least 1 but was " + failureThreshold);
		}
		if (openDurationNanos <= 0) {
			throw new IllegalArgumentException("open duration must be positive but was " + openDurationNanos + "ns");
		}
		this.clock = clock;
		this.failureThreshold = failureThreshold;
		this.openDurationNanos = openDurationNanos;
	}

	/**
	 * Whether a call may go to the remote now. An open breaker lets exactly one call
	 * through once its open duration has passed; a probe that never reports (a
	 * cancelled request) is replaced by another after the same duration.
	 */
	public boolean allowsCall() {
		State current = this.state.get();
		if (current == State.CLOSED) {
			return true;
		}
		long now = this.clock.nanoTime();
		long startedAt = this.since.get();
		if (now - startedAt < this.openDurationNanos) {
			return false;
		}
		if (this.since.compareAndSet(startedAt, now)) {
			this.state.set(State.HALF_OPEN);
			return true;
		}
		return false;
	}

	/**
	 * A call succeeded: the breaker closes.
	 */
	public void onSuccess() {
		this.consecutiveFailures.set(0);
		if (this.state.get() != State.CLOSED) {
			this.state.set(State.CLOSED);
		}
	}

	/**
	 * A call failed or timed out: a failed probe reopens the breaker, and the
	 * threshold's failure in a row opens a closed one.
	 */
	public void onFailure() {
		int failures = this.consecutiveFailures.incrementAndGet();
		State current = this.state.get();
		if (current == State.HALF_OPEN || (current == State.CLOSED && failures >= this.failureThreshold)) {
			this.since.set(this.clock.nanoTime());
			this.state.set(State.OPEN);
		}
	}

	public State state() {
		return this.state.get();
	}

	/**
	 * Failures since the last success.
	 */
	public int consecutiveFailures() {
		return this.consecutiveFailures.get();
	}

	public long openDurationNanos() {
		return this.openDurationNanos;
	}

}
