package dev.ratelimit.store.redis;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.ratelimit.algorithm.Algorithm;

/**
 * The numbers the Java side and the Lua script agree on, each written once, here. The
 * script does not repeat them: {@link #luaConstants()} declares them as Lua locals in
 * front of the script's source, and the Lua files use their names. What the script
 * returns is read by the strides below, and {@code ScriptProtocolTests} calls every
 * algorithm in every mode on a real Redis, so a reply laid out differently fails there.
 */
final class ScriptProtocol {

	/**
	 * Lots of leased units one lease call can give back, each with its own lease time:
	 * the lot a node stopped spending, and the lot it still held.
	 */
	static final int REFUND_LOTS = 2;

	/**
	 * Script arguments before the limits' own, in order: mode, cost, idle-ms, want,
	 * requests, then {@link #REFUND_LOTS} pairs of units to give back and the Redis time
	 * (microseconds) they were leased at.
	 */
	static final int FIXED_ARGUMENTS = 5 + 2 * REFUND_LOTS;

	/**
	 * Script arguments per limit: algorithm code, quota, period in microseconds, rate,
	 * and the limit's tag (its position and those four), under which the bucket key
	 * holds its state.
	 */
	static final int ARGUMENTS_PER_LIMIT = 5;

	/**
	 * Arguments of the lean acquire script (a tier of one limit, mode acquire; see
	 * {@link BucketScript}), in order: cost, idle-ms, then the limit's quota, period in
	 * microseconds and rate, and its tag between {@code |} and a space, as it stands in
	 * the bucket key. Its keys are the bucket key and, for a sliding window log, the
	 * log's list; it answers as an acquire of the generic script,
	 * {@link #DECISION_VALUES} values.
	 */
	static final int LEAN_ARGUMENTS = 6;

	/**
	 * Reply values per limit of a decision: admitted (1 or 0), remaining, reset and
	 * retry-after in microseconds, as {@link dev.ratelimit.algorithm.Decision}.
	 */
	static final int DECISION_VALUES = 4;

	/**
	 * Reply values before a lease's decisions: units granted, Redis time of the lease.
	 */
	static final int LEASE_HEADER_VALUES = 2;

	/**
	 * Reply values before a peek's limits: requests judged.
	 */
	static final int PEEK_HEADER_VALUES = 1;

	/**
	 * State values a peek describes per limit, padded with empty strings.
	 */
	static final int STATE_VALUES = 3;

	/**
	 * Reply values per limit of a peek: remaining, reset in microseconds, the state
	 * values.
	 */
	static final int PEEK_VALUES = 2 + STATE_VALUES;

	private ScriptProtocol() {
	}

	/**
	 * The algorithm's code in the script's {@code algorithms} table.
	 */
	static int code(Algorithm algorithm) {
		return switch (algorithm) {
			case FIXED_WINDOW -> 1;
			case SLIDING_WINDOW_LOG -> 2;
			case SLIDING_WINDOW_COUNTER -> 3;
			case TOKEN_BUCKET -> 4;
			case LEAKY_BUCKET -> 5;
		};
	}

	/**
	 * The Lua name of an algorithm's code: its enum constant's name.
	 */
	static String luaName(Algorithm algorithm) {
		return algorithm.name();
	}

	/**
	 * Lua local declarations of every number above, to put in front of the script.
	 */
	static String luaConstants() {
		Map<String, Integer> constants = new LinkedHashMap<>();
		for (Algorithm algorithm : Algorithm.values()) {
			constants.put(luaName(algorithm), code(algorithm));
		}
		constants.put("FIXED_ARGUMENTS", FIXED_ARGUMENTS);
		constants.put("REFUND_LOTS", REFUND_LOTS);
		constants.put("ARGUMENTS_PER_LIMIT", ARGUMENTS_PER_LIMIT);
		constants.put("DECISION_VALUES", DECISION_VALUES);
		constants.put("STATE_VALUES", STATE_VALUES);
		StringBuilder lua = new StringBuilder("-- From dev.ratelimit.store.redis.ScriptProtocol.\n");
		constants.forEach((name, value) -> lua.append("local ").append(name).append(" = ").append(value).append('\n'));
		return lua.toString();
	}

}
