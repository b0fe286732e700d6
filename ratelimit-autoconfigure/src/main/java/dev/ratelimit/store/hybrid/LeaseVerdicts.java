package dev.ratelimit.store.hybrid;

import java.util.List;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import org.jspecify.annotations.Nullable;

/**
 * The verdicts a {@link Lease} gives without asking Redis, from what Redis last said
 * of the bucket: each limit's decision on one more request after the lease.
 */
final class LeaseVerdicts {

	private LeaseVerdicts() {
	}

	/**
	 * Admitted from the lease. Its remaining count is what the client can still use, as
	 * far as this node knows: what Redis has leased to no node, plus the
	 * {@code unitsHeld} this node leased and has not admitted (the lot it spends and the
	 * lot it gives back next). Redis counts a leased unit as consumed, and its decision
	 * is on one more request of {@code probeCost} after the lease: when that request
	 * would be admitted, its cost is still unleased too. Units other nodes hold count as
	 * used until they give them back.
	 */
	static Verdict admitted(Decision[] global, long probeCost, long unitsHeld) {
		Decision[] decisions = new Decision[global.length];
		for (int i = 0; i < decisions.length; i++) {
			Decision limit = global[i];
			long unleased = limit.allowed() ? limit.remaining() + probeCost : limit.remaining();
			decisions[i] = new Decision(true, Math.min(limit.limit(), unleased + unitsHeld), limit.limit(),
					limit.resetNanos(), 0);
		}
		return Verdict.of(decisions);
	}

	/**
	 * What Redis said, {@code elapsed} nanoseconds later: a rejection while the bucket
	 * is empty.
	 */
	static Verdict asRedisSaid(Decision[] global, long elapsed) {
		Decision[] decisions = new Decision[global.length];
		for (int i = 0; i < decisions.length; i++) {
			decisions[i] = aged(global[i], elapsed);
		}
		return Verdict.of(decisions);
	}

	/**
	 * The bucket has room, but this node's share of it is gone until its next sync:
	 * the limit closest to exhaustion rejects until then.
	 * @param global what Redis last said, or {@code null} when it said nothing yet
	 */
	static Verdict shareSpent(Tier tier, Decision @Nullable [] global, long elapsed, long syncIntervalNanos) {
		List<Limit> limits = tier.limits();
		Decision[] decisions = new Decision[limits.size()];
		int tightest = 0;
		for (int i = 0; i < decisions.length; i++) {
			long quota = limits.get(i).quota();
			decisions[i] = (global != null) ? aged(global[i], elapsed) : new Decision(true, quota, quota, 0, 0);
			if (decisions[i].remaining() < decisions[tightest].remaining()) {
				tightest = i;
			}
		}
		decisions[tightest] = Decision.rejected(0, decisions[tightest].limit(), syncIntervalNanos);
		return Verdict.of(decisions);
	}

	/**
	 * What Redis said of a limit, {@code elapsed} nanoseconds later.
	 */
	private static Decision aged(Decision global, long elapsed) {
		if (global.allowed()) {
			return new Decision(true, global.remaining(), global.limit(), Math.max(0, global.resetNanos() - elapsed),
					0);
		}
		return Decision.rejected(global.remaining(), global.limit(), Math.max(1, global.retryAfterNanos() - elapsed));
	}

}
