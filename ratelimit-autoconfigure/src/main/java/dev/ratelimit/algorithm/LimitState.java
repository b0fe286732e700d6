package dev.ratelimit.algorithm;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * One client's mutable state for one {@link Limit}, in an object of its own: a limit of
 * a tier of several, or a state judged on its own. Not thread-safe: the store that
 * holds it makes each probe-and-commit atomic.
 */
public final class LimitState extends StateWords {

	private final Limit limit;

	private @Nullable Object extension;

	LimitState(Limit limit, long nowNanos) {
		this.limit = limit;
		limit.start(this, nowNanos);
	}

	/**
	 * Judge a request of {@code cost} units at {@code nowNanos} without consuming
	 * anything. When allowed, the decision's remaining and reset describe the state
	 * after {@link #commit}.
	 */
	public Decision probe(long nowNanos, long cost) {
		return this.limit.probe(this, nowNanos, cost);
	}

	/**
	 * Consume {@code cost} units at {@code nowNanos}; only after a {@link #probe} at the
	 * same instant allowed it.
	 */
	public void commit(long nowNanos, long cost) {
		this.limit.commit(this, nowNanos, cost);
	}

	/**
	 * Give back {@code units} consumed at {@code consumedAtNanos} by a request never
	 * forwarded, as {@link Limit#refund} has it.
	 */
	public void refund(long nowNanos, long units, long consumedAtNanos) {
		this.limit.refund(this, nowNanos, units, consumedAtNanos);
	}

	/**
	 * The algorithm's own state at {@code nowNanos} (tokens, queue level, window counts,
	 * log size), keyed by name, for display.
	 */
	public Map<String, Number> describe(long nowNanos) {
		return this.limit.describe(this, nowNanos);
	}

	@Override
	protected @Nullable Object extension() {
		return this.extension;
	}

	@Override
	protected void extension(@Nullable Object extension) {
		this.extension = extension;
	}

}
