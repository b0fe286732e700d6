package dev.ratelimit.store.redis;

import java.util.List;

import dev.ratelimit.algorithm.Block;
import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;

/**
 * Reads the scripts' replies, laid out as {@link ScriptProtocol} says.
 */
final class ScriptReplies {

	private static final long NANOS_PER_MICRO = 1_000;

	private ScriptReplies() {
	}

	/**
	 * A multi-bulk reply arrives as one list or as its elements, depending on the
	 * driver; either way, its elements.
	 */
	@SuppressWarnings({ "rawtypes", "unchecked" })
	static List<Object> flatten(List<List> reply) {
		if (reply.size() == 1 && reply.get(0) instanceof List<?> only) {
			return (List<Object>) only;
		}
		return (List<Object>) (List) reply;
	}

	/**
	 * Each limit's decision, from {@code offset} on.
	 */
	static Decision[] decisions(Tier tier, List<Object> reply, int offset) {
		List<Limit> limits = tier.limits();
		Decision[] decisions = new Decision[limits.size()];
		for (int i = 0; i < decisions.length; i++) {
			int at = offset + i * ScriptProtocol.DECISION_VALUES;
			decisions[i] = new Decision(longAt(reply, at) == 1, longAt(reply, at + 1), limits.get(i).quota(),
					microsAt(reply, at + 2), microsAt(reply, at + 3), microsAt(reply, at + 4));
		}
		return decisions;
	}

	/**
	 * The decisions of a lean call that judged {@code count} requests in turn on a tier
	 * of one limit: one per request, in order.
	 */
	static Decision[] eachDecision(Tier tier, List<Object> reply, int count) {
		Decision[] decisions = new Decision[count];
		for (int i = 0; i < count; i++) {
			decisions[i] = decisions(tier, reply, i * ScriptProtocol.DECISION_VALUES)[0];
		}
		return decisions;
	}

	/**
	 * Each limit as a peek describes it (the reply of a {@code peek} or a
	 * {@code settle}): a decision admitting nothing more, with its remaining and reset.
	 */
	static Decision[] described(Tier tier, List<Object> reply) {
		List<Limit> limits = tier.limits();
		Decision[] described = new Decision[limits.size()];
		for (int i = 0; i < described.length; i++) {
			int at = ScriptProtocol.PEEK_HEADER_VALUES + i * ScriptProtocol.PEEK_VALUES;
			described[i] = new Decision(true, longAt(reply, at), limits.get(i).quota(), microsAt(reply, at + 1), 0);
		}
		return described;
	}

	/**
	 * The verdict of a penalized call: refused by the client's block in force, or the
	 * decisions after {@link ScriptProtocol#PENALTY_HEADER_VALUES}, with the block their
	 * breach started.
	 */
	static Verdict penalized(Tier tier, List<Object> reply) {
		long penalty = longAt(reply, 0);
		if (penalty == ScriptProtocol.BLOCKED) {
			return Verdict.blocked(block(reply, 1), microsAt(reply, 2));
		}
		Verdict verdict = Verdict.of(decisions(tier, reply, ScriptProtocol.PENALTY_HEADER_VALUES));
		return (penalty == ScriptProtocol.BLOCK_STARTED) ? verdict.startingBlock(block(reply, 1), microsAt(reply, 2))
				: verdict;
	}

	/**
	 * A block whose step is at {@code at}, followed by the microseconds it still lasts,
	 * its end and its forgiveness, instants in nanoseconds of Redis time.
	 */
	static Block block(List<Object> reply, int at) {
		return new Block((int) longAt(reply, at), microsAt(reply, at + 2), microsAt(reply, at + 3));
	}

	static long longAt(List<Object> reply, int index) {
		Object value = reply.get(index);
		return (value instanceof Number number) ? number.longValue() : Long.parseLong(String.valueOf(value));
	}

	/**
	 * A duration the script returns in microseconds, Redis TIME's unit, in nanoseconds.
	 */
	static long microsAt(List<Object> reply, int index) {
		return longAt(reply, index) * NANOS_PER_MICRO;
	}

}
