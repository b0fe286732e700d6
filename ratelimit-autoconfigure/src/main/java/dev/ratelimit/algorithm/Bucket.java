package dev.ratelimit.algorithm;

import java.util.List;
import java.util.Map;

/**
 * One client's states for the limits of a tier, judged all-or-nothing: a request is
 * consumed by every limit or by none. Not thread-safe: the store that holds it makes
 * each call atomic.
 */
public final class Bucket {

	private final List<Limit> limits;

	private final LimitState[] states;

	private long requests;

	/**
	 * A bucket for a client first seen at {@code nowNanos}.
	 * @param limits the tier's limits, never empty
	 * @param nowNanos the clock's reading
	 */
	public Bucket(List<Limit> limits, long nowNanos) {
		if (limits.isEmpty()) {
			throw new IllegalArgumentException("a bucket needs at least one limit");
		}
		this.limits = List.copyOf(limits);
		this.states = new LimitState[this.limits.size()];
		for (int i = 0; i < this.states.length; i++) {
			this.states[i] = this.limits.get(i).newState(nowNanos);
		}
	}

	/**
	 * Judge a request of {@code cost} units at {@code nowNanos} against every limit,
	 * consuming it from all of them only when all admit it. On a rejection, the limits
	 * that would have admitted the request report what they hold, since they consume
	 * nothing.
	 */
	public Verdict tryAcquire(long nowNanos, long cost) {
		this.requests++;
		Decision[] decisions = new Decision[this.states.length];
		boolean allowed = true;
		for (int i = 0; i < this.states.length; i++) {
			decisions[i] = this.states[i].probe(nowNanos, cost);
			allowed &= decisions[i].allowed();
		}
		if (allowed) {
			for (LimitState state : this.states) {
				state.commit(nowNanos, cost);
			}
		}
		else {
			for (int i = 0; i < this.states.length; i++) {
				if (decisions[i].allowed()) {
					decisions[i] = this.states[i].probe(nowNanos, 0);
				}
			}
		}
		return Verdict.of(decisions);
	}

	/**
	 * Requests judged since the bucket was created, admitted or not.
	 */
	public long requests() {
		return this.requests;
	}

	/**
	 * The limits, in the tier's order.
	 */
	public List<Limit> limits() {
		return this.limits;
	}

	/**
	 * Where the limit at {@code index} stands at {@code nowNanos}, consuming nothing:
	 * its remaining units and time until reset.
	 */
	public Decision peek(int index, long nowNanos) {
		return this.states[index].probe(nowNanos, 0);
	}

	/**
	 * The algorithm's own state of the limit at {@code index} at {@code nowNanos}.
	 */
	public Map<String, Number> describe(int index, long nowNanos) {
		return this.states[index].describe(nowNanos);
	}

}
