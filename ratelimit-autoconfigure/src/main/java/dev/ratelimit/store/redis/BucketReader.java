package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ratelimit.algorithm.Algorithm;
import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BlockSnapshot;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.LimitSnapshot;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.core.ScanOptions;

/**
 * The read side of the Redis buckets, for the actuator and metrics: live buckets found
 * with SCAN, described with the script's {@code peek} (which consumes nothing), and
 * reset by deleting their keys; penalty blocks likewise, described by the block peek.
 * Requests are never decided here.
 */
final class BucketReader {

	/**
	 * Keys asked of Redis per SCAN call: bounded batches, so that walking a large
	 * keyspace never blocks Redis.
	 */
	private static final long SCAN_BATCH = 500;

	private static final Duration MINIMUM_READ_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * The state values the script's peek returns for each algorithm, by name.
	 */
	private static final Map<Algorithm, List<String>> STATE_NAMES = Map.of(Algorithm.FIXED_WINDOW, List.of("count"),
			Algorithm.SLIDING_WINDOW_LOG, List.of("logSize"), Algorithm.SLIDING_WINDOW_COUNTER,
			List.of("current", "previous", "estimate"), Algorithm.TOKEN_BUCKET, List.of("tokens"),
			Algorithm.LEAKY_BUCKET, List.of("level"), Algorithm.CONCURRENCY, List.of("inFlight"));

	/**
	 * A shaping leaky bucket's state values: its level and the seconds a request judged
	 * now would be held.
	 */
	private static final List<String> QUEUE_STATE_NAMES = List.of("level", "hold");

	private final BucketScript script;

	BucketReader(BucketScript script) {
		this.script = script;
	}

	/**
	 * How long a read-side step may wait on Redis: far longer than a decision, which
	 * must be fast, but bounded, so that an actuator call never hangs on a dead Redis.
	 */
	static Duration readTimeout(Duration decisionTimeout) {
		Duration scaled = decisionTimeout.multipliedBy(4);
		return (scaled.compareTo(MINIMUM_READ_TIMEOUT) > 0) ? scaled : MINIMUM_READ_TIMEOUT;
	}

	/**
	 * The bucket as it stands, consuming nothing; empty when it is not live.
	 */
	Mono<BucketSnapshot> peek(BucketId id, RedisLayout layout) {
		return this.script.call(layout, id.key(), "peek", 0, 0, 0, Refund.NONE, Refund.NONE)
			.filter((reply) -> !reply.isEmpty())
			.map((reply) -> snapshot(id, layout.tier(), reply));
	}

	/**
	 * The live buckets of a policy, walked with SCAN in bounded batches.
	 */
	Flux<BucketSnapshot> buckets(RateLimitPolicy policy) {
		return scan(policy).concatMap((bucketKey) -> {
			for (RedisLayout layout : this.script.layouts().layouts(policy)) {
				Optional<String> clientKey = layout.clientKeyOf(bucketKey);
				if (clientKey.isPresent()) {
					return peek(new BucketId(policy.id(), layout.tier().name(), clientKey.get()), layout);
				}
			}
			return Mono.empty();
		}, 8);
	}

	/**
	 * The live buckets of one client key, one per tier it was judged under.
	 */
	Flux<BucketSnapshot> bucket(RateLimitPolicy policy, String clientKey) {
		return Flux.fromIterable(this.script.layouts().layouts(policy))
			.concatMap((layout) -> peek(new BucketId(policy.id(), layout.tier().name(), clientKey), layout));
	}

	/**
	 * Forget every bucket of one client key, and its blocks.
	 * @return whether there was one
	 */
	Mono<Boolean> reset(RateLimitPolicy policy, String clientKey) {
		// One DEL per tier: different tiers are different hash tags, maybe different
		// cluster slots.
		return Flux.fromIterable(this.script.layouts().layouts(policy))
			.concatMap((layout) -> delete(layout, clientKey))
			.reduce(false, Boolean::logicalOr);
	}

	/**
	 * How many live buckets a policy has, counted with SCAN.
	 */
	Mono<Long> count(RateLimitPolicy policy) {
		return scan(policy).count();
	}

	/**
	 * The penalty blocks in force of a policy, walked with SCAN as its buckets are.
	 */
	Flux<BlockSnapshot> blocks(RateLimitPolicy policy) {
		return scan(policy, RedisLayout.BLOCK_SUFFIX).concatMap((blockKey) -> {
			for (RedisLayout layout : this.script.layouts().layouts(policy)) {
				Optional<String> clientKey = layout.blockClientKeyOf(blockKey);
				if (clientKey.isPresent()) {
					return peekBlock(new BucketId(policy.id(), layout.tier().name(), clientKey.get()), layout);
				}
			}
			return Mono.empty();
		}, 8);
	}

	/**
	 * The penalty blocks in force of one client key, one per tier it breached under.
	 */
	Flux<BlockSnapshot> blocks(RateLimitPolicy policy, String clientKey) {
		return Flux.fromIterable(this.script.layouts().layouts(policy))
			.concatMap((layout) -> peekBlock(new BucketId(policy.id(), layout.tier().name(), clientKey), layout));
	}

	/**
	 * Lift the blocks of one client key and forget its record.
	 * @return whether it had one
	 */
	Mono<Boolean> lift(RateLimitPolicy policy, String clientKey) {
		return Flux.fromIterable(this.script.layouts().layouts(policy))
			.concatMap((layout) -> delete(List.of(layout.blockKey(clientKey))))
			.reduce(false, Boolean::logicalOr);
	}

	private Mono<BlockSnapshot> peekBlock(BucketId id, RedisLayout layout) {
		return this.script.peekBlock(layout, id.key())
			.map((reply) -> new BlockSnapshot(id, ScriptReplies.block(reply, 0), ScriptReplies.microsAt(reply, 1)));
	}

	/**
	 * The bucket's keys and its block key, in one hash tag: one DEL.
	 */
	private Mono<Boolean> delete(RedisLayout layout, String clientKey) {
		List<String> keys = new ArrayList<>(layout.keys(clientKey));
		keys.add(layout.blockKey(clientKey));
		return delete(keys);
	}

	private Mono<Boolean> delete(List<String> keys) {
		RedisConnection connection = this.script.connection();
		return connection.onRedis(connection.template().delete(Flux.fromIterable(keys)).flux())
			.single()
			.map((deleted) -> deleted > 0);
	}

	private Flux<String> scan(RateLimitPolicy policy) {
		return scan(policy, RedisLayout.BUCKET_SUFFIX);
	}

	private Flux<String> scan(RateLimitPolicy policy, String suffix) {
		// The escaped policy id holds no ':' and no glob character: the pattern matches the
		// policy's keys of that suffix and no other policy's.
		String pattern = escapeGlob(this.script.layouts().keyPrefix()) + ":{" + RedisLayout.escape(policy.id()) + ":*"
				+ suffix;
		RedisConnection connection = this.script.connection();
		ScanOptions options = ScanOptions.scanOptions().match(pattern).count(SCAN_BATCH).build();
		return connection.onRedis(connection.template().scan(options));
	}

	private static BucketSnapshot snapshot(BucketId id, Tier tier, List<Object> reply) {
		List<Limit> limits = tier.limits();
		Decision[] described = ScriptReplies.described(tier, reply);
		List<LimitSnapshot> snapshots = new ArrayList<>(limits.size());
		for (int i = 0; i < limits.size(); i++) {
			Limit limit = limits.get(i);
			int at = ScriptProtocol.PEEK_HEADER_VALUES + i * ScriptProtocol.PEEK_VALUES;
			Decision now = described[i];
			Map<String, Number> state = new LinkedHashMap<>();
			List<String> names = (limit instanceof LeakyBucket && limit.shaping() != null) ? QUEUE_STATE_NAMES
					: STATE_NAMES.get(limit.algorithm());
			for (int j = 0; j < names.size(); j++) {
				state.put(names.get(j), number(String.valueOf(reply.get(at + 2 + j))));
			}
			snapshots.add(new LimitSnapshot(limit.algorithm().configName(), limit.quota(), now.remaining(),
					now.resetSeconds(), state));
		}
		return new BucketSnapshot(id, ScriptReplies.longAt(reply, 0), snapshots);
	}

	/**
	 * A count as a long, a fraction rounded to three decimals as the local store shows
	 * it.
	 */
	private static Number number(String value) {
		if (value.indexOf('.') < 0 && value.indexOf('e') < 0 && value.indexOf('E') < 0) {
			return Long.parseLong(value);
		}
		return Math.round(Double.parseDouble(value) * 1000.0) / 1000.0;
	}

	private static String escapeGlob(String literal) {
		StringBuilder escaped = new StringBuilder(literal.length());
		for (int i = 0; i < literal.length(); i++) {
			char c = literal.charAt(i);
			if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
				escaped.append('\\');
			}
			escaped.append(c);
		}
		return escaped.toString();
	}

}
