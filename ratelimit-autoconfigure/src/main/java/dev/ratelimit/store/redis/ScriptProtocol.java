package dev.ratelimit.store.redis;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.ratelimit.algorithm.Algorithm;

/**
 * How Java calls the limiter's Lua scripts and reads their replies: the one description
 * of it, the Lua files point here. The numbers both sides agree on are written once,
 * below; {@link #luaConstants()} declares them as Lua locals in front of the generic
 * script, whose files use their names.
 * <p>
 * <b>The bucket.</b> One call judges one bucket: its bucket key ({@link RedisLayout}
 * names the keys) is a string holding the requests judged and every limit's stored
 * fields, {@code <requests>|<tag> <fields>|<tag> <fields>...}, each limit's fields
 * (numbers separated by spaces) under its tag, its position and parameters, so that a
 * limit a live reload changed starts afresh. It is written with one {@code SET} that also
 * renews its expiry: the tier's idle timeout, longer while a token or leaky bucket is in
 * debt (until it is full, or empty, again, as
 * {@link dev.ratelimit.algorithm.Limit#idleNanos} says: idleness forgives no debt), and at
 * least a slot lease when the tier counts requests in flight. A sliding window log keeps
 * its instants in a list key of its own, which expires when its newest entry does. A
 * concurrency limit keeps its slots in a hash key of its own, a field per node:
 * {@code <slots> <expiry>}, the node's lease (Redis time in microseconds), renewed while
 * the node has requests in flight; the hash expires with its latest lease.
 * <p>
 * <b>The generic script</b> judges any tier. Keys: each limit's own key in the tier's
 * order (used by a sliding window log's list and a concurrency limit's hash), then the
 * bucket key. Arguments: {@link #FIXED_ARGUMENTS} (mode, cost, idle-ms, want, requests,
 * held, ended, node, lease-ms, then {@link #REFUND_LOTS} pairs of units and the Redis
 * time they were leased at), then {@link #ARGUMENTS_PER_LIMIT} per limit (algorithm
 * {@linkplain #code(Algorithm) code}, quota, period in microseconds, rate, max-delay in
 * microseconds, delay-after, tag; a max-delay of {@code 0} is a limit that meters), then
 * a periods argument per limit counted in calendar periods, in the tier's order.
 * {@code node} is the calling store's id, {@code lease-ms} how long its slots are leased.
 * <p>
 * <b>Calendar periods.</b> A window limit counted in calendar periods has its calendar's
 * name in place of its period ({@code month@Europe/Paris}, not a number), and a periods
 * argument ({@link CalendarArguments}): the index of a first period, then where it and
 * the three after it start and where the last ends, in microseconds, separated by
 * spaces, placed by the calling node around its own clock. Lua has no time-zone
 * database: the script only places Redis TIME among those periods, which must fall in
 * one of the first three, so that the period after it is known too; otherwise it fails
 * the call (the store's failure mode decides), since Redis's clock and the node's then
 * differ by about a period. The index of a period is its own, as
 * {@link dev.ratelimit.algorithm.CalendarPeriods} counts them, so that both stores keep
 * the same numbers.
 * Modes:
 * <ul>
 * <li>{@code acquire}: judge {@code cost} against every limit; consume from all or none.
 * Replies {@link #DECISION_VALUES} per limit.</li>
 * <li>{@code check}: judge {@code cost} against every limit as {@code acquire} does; when
 * all admit, only the limits that count requests in flight take their slot. Replies as
 * {@code acquire}, but an admission reports the other limits as they stand, the cost not
 * taken (their probe of nothing), as {@link dev.ratelimit.algorithm.Bucket#check}
 * does.</li>
 * <li>{@code lease}: give back each lot of units at the time it was leased at, then
 * consume up to {@code want} units that every limit admits, and judge {@code cost}
 * against what is left, every limit metering: a lease is spent in a node's memory, which
 * holds no request. Replies {@link #LEASE_HEADER_VALUES}, then the decisions.</li>
 * <li>{@code settle}: {@code cost} is a settlement's units: above {@code 0} charged to
 * every limit without judging (past its quota if need be), below given back on every
 * limit as taken at the Redis time {@code now - held}; then, when {@code ended} is
 * {@code 1}, every limit that counts requests in flight gives back one of the node's
 * slots. Replies as {@code peek}, after settling. Creates no bucket: without one, only
 * the slots are given back, and the reply is empty.</li>
 * <li>{@code renew}: renew the node's lease on every limit that counts requests in
 * flight, for at most {@code cost} slots (those it still counts), and keep the bucket
 * key alive for a lease. Replies nothing.</li>
 * <li>{@code peek}: describe the bucket, consuming nothing; an empty reply when there is
 * no bucket. Replies {@link #PEEK_HEADER_VALUES}, then {@link #PEEK_VALUES} per
 * limit.</li>
 * </ul>
 * A limit charged past its quota refuses every request until it has room again: its
 * remaining is {@code 0}, and its reset and retry-after say when the request fits. A probe
 * of nothing (a peek's) only describes: its reset is when one unit fits.
 * <b>The lean script</b> of a limit judges an acquire on a tier of that one limit, as the
 * generic script does and on the same stored text; a limit that counts requests in
 * flight has none, its tier is the generic script's. Keys: the bucket key, then, for a
 * sliding window log, its list. Arguments: {@link #LEAN_ARGUMENTS}. Reply: one decision
 * per request judged.
 * <p>
 * <b>The penalized forms</b> of both scripts judge an {@code acquire} (or, the generic
 * one, a {@code check}) under a penalty box. Keys: the form's own, then the client's
 * block key ({@link RedisLayout} names it), in the bucket's hash tag, holding
 * {@code <step> <until> <forgiven>} (Redis time in microseconds) and expiring once
 * forgiven. Arguments: the form's own, then the steps of {@code block-for} in
 * microseconds separated by spaces, then {@code forgive-after} in microseconds
 * ({@code 0} for one step). A block in force refuses the request before anything is
 * read or written; a decision some limit refused starts the next block in the same call.
 * Reply: {@link #PENALTY_HEADER_VALUES} (what the penalty did: {@link #BLOCK_NONE},
 * {@link #BLOCKED} or {@link #BLOCK_STARTED}; the block's step, the microseconds it still
 * lasts, its end and its forgiveness), then, unless blocked, the form's decisions.
 * <b>The block peek</b> takes the block key alone and replies
 * {@link #BLOCK_PEEK_VALUES}, or nothing when no block is in force.
 * <p>
 * {@code ScriptProtocolTests} calls every algorithm in every mode on a real Redis, so a
 * reply laid out differently fails there.
 */
final class ScriptProtocol {

	/**
	 * Lots of leased units one lease call can give back, each with its own lease time:
	 * the lot a node stopped spending, and the lot it still held.
	 */
	static final int REFUND_LOTS = 2;

	/**
	 * Script arguments before the limits' own, in order: mode, cost, idle-ms, want,
	 * requests, held (microseconds, a settlement's), ended ({@code 1} or {@code 0}),
	 * node, lease-ms, then {@link #REFUND_LOTS} pairs of units to give back and the Redis
	 * time (microseconds) they were leased at.
	 */
	static final int FIXED_ARGUMENTS = 9 + 2 * REFUND_LOTS;

	/**
	 * Where {@code ended} is among the arguments, counted from 1 as in Lua.
	 */
	static final int ENDED_ARGUMENT = 7;

	/**
	 * Where {@code node} is among the arguments, {@code lease-ms} after it.
	 */
	static final int NODE_ARGUMENT = 8;

	/**
	 * Where the first lot of units to give back is among the arguments.
	 */
	static final int FIRST_LOT_ARGUMENT = 10;

	/**
	 * Script arguments per limit: algorithm code, quota, period in microseconds, rate,
	 * max-delay in microseconds ({@code 0}: the limit meters), delay-after, and the
	 * limit's tag (its position and the first four), under which the bucket key holds its
	 * state.
	 */
	static final int ARGUMENTS_PER_LIMIT = 7;

	/**
	 * Arguments of the lean script: the cost (or, for several requests judged in turn as
	 * if each came alone, their costs each followed by a space, then {@code /n} when
	 * {@code n} more requests are to be counted as judged); then, for a limit counted in
	 * calendar periods, its periods argument. The limit itself, the tier's idle timeout
	 * and the limit's tag are the script's constants ({@link LeanLimit}).
	 */
	static final int LEAN_ARGUMENTS = 1;

	/**
	 * Reply values per limit of a decision: admitted (1 or 0), remaining, reset,
	 * retry-after and delay in microseconds, as {@link dev.ratelimit.algorithm.Decision}.
	 */
	static final int DECISION_VALUES = 5;

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

	/**
	 * Reply values before a penalized call's decisions: what the penalty did, the block's
	 * step, the microseconds it still lasts, its end and its forgiveness (Redis time in
	 * microseconds); all {@code 0} but the first when it did nothing.
	 */
	static final int PENALTY_HEADER_VALUES = 5;

	/**
	 * What a penalized call's penalty did: nothing (the request was judged, and no limit
	 * refused it).
	 */
	static final int BLOCK_NONE = 0;

	/**
	 * What a penalized call's penalty did: a block in force refused the request, and no
	 * limit was consulted.
	 */
	static final int BLOCKED = 1;

	/**
	 * What a penalized call's penalty did: a limit refused the request, whose breach
	 * started a block.
	 */
	static final int BLOCK_STARTED = 2;

	/**
	 * Reply values of a block peek: step, the microseconds it still lasts, its end and
	 * its forgiveness.
	 */
	static final int BLOCK_PEEK_VALUES = 4;

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
			case CONCURRENCY -> 6;
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
		constants.put("ENDED_ARGUMENT", ENDED_ARGUMENT);
		constants.put("NODE_ARGUMENT", NODE_ARGUMENT);
		constants.put("FIRST_LOT_ARGUMENT", FIRST_LOT_ARGUMENT);
		constants.put("REFUND_LOTS", REFUND_LOTS);
		constants.put("ARGUMENTS_PER_LIMIT", ARGUMENTS_PER_LIMIT);
		constants.put("DECISION_VALUES", DECISION_VALUES);
		constants.put("STATE_VALUES", STATE_VALUES);
		constants.put("BLOCK_NONE", BLOCK_NONE);
		constants.put("BLOCKED", BLOCKED);
		constants.put("BLOCK_STARTED", BLOCK_STARTED);
		StringBuilder lua = new StringBuilder("-- From dev.ratelimit.store.redis.ScriptProtocol.\n");
		constants.forEach((name, value) -> lua.append("local ").append(name).append(" = ").append(value).append('\n'));
		return lua.toString();
	}

}
