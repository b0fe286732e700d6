package dev.ratelimit.store.redis;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.Verdict;
import org.jspecify.annotations.Nullable;

/**
 * A refusal Redis gave a bucket, which this node repeats by itself to requests of the
 * same cost until its retry-after has passed: other nodes can only take more of the
 * bucket meanwhile, so none of them fits before then, and each limit would decide it as
 * it did (a request of another cost may fit earlier, or be refused by other limits, so
 * it is asked). Its instants are on this node's clock, counted from when the call was
 * sent, which is before Redis decided: this node stops refusing no later than Redis
 * would.
 *
 * @param cost the cost Redis refused
 * @param sentNanos when the call that was refused was sent
 * @param untilNanos when the request of {@code cost} may fit, at the earliest
 * @param verdict the refusal, as Redis gave it
 */
record RefusedUntil(long cost, long sentNanos, long untilNanos, Verdict verdict) {

	/**
	 * The refusal of {@code verdict}, or {@code null} when it is not one this node may
	 * repeat: an admission, a failure mode's verdict, a block (the penalty box's own), or
	 * one that says the request fits now.
	 */
	static @Nullable RefusedUntil of(long cost, long sentNanos, Verdict verdict) {
		if (verdict.allowed() || verdict.fallback() || verdict.blocked() || verdict.retryAfterNanos() <= 0
				|| verdict.limitCount() == 0) {
			return null;
		}
		return new RefusedUntil(cost, sentNanos, sentNanos + verdict.retryAfterNanos(), verdict);
	}

	/**
	 * Whether a request of {@code cost} is refused at {@code now}.
	 */
	boolean refuses(long cost, long now) {
		return cost == this.cost && now < this.untilNanos;
	}

	/**
	 * The refusal as at {@code now}: every limit's reset and retry-after shortened by the
	 * time since the call was sent, so that a client is told to come back when it may.
	 */
	Verdict at(long now) {
		long elapsed = now - this.sentNanos;
		Decision[] decisions = new Decision[this.verdict.limitCount()];
		for (int i = 0; i < decisions.length; i++) {
			Decision decision = this.verdict.decision(i);
			long retryAfter = decision.allowed() ? 0 : Math.max(1, decision.retryAfterNanos() - elapsed);
			decisions[i] = new Decision(decision.allowed(), decision.remaining(), decision.limit(),
					Math.max(decision.allowed() ? 0 : 1, decision.resetNanos() - elapsed), retryAfter);
		}
		return Verdict.of(decisions);
	}

}
