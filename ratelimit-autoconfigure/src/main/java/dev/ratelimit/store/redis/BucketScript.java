package dev.ratelimit.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.algorithm.Algorithm;
import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.LimitSnapshot;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.scheduler.Schedulers;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The limiter's one Lua script and how buckets are read and written with it. The
 * script is the algorithms' files and the driver concatenated once; Spring Data
 * calls it by SHA ({@code EVALSHA}) and sends it again ({@code EVAL}, which caches
 * it) when Redis answers {@code NOSCRIPT}, after a restart or a {@code SCRIPT FLUSH}.
 */
public final class BucketScript {

	/**
	 * In order: shared helpers first, the driver last.
	 */
	private static final List<String> SOURCES = List.of("header.lua", "fixed_window.lua", "sliding_window_log.lua",
			"sliding_window_counter.lua", "token_bucket.lua", "leaky_bucket.lua", "driver.lua");

	private static final long NANOS_PER_MICRO = 1_000;

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
			Algorithm.LEAKY_BUCKET, List.of("level"));

	@SuppressWarnings("rawtypes")
	private final RedisScript<List> script;

	private final ReactiveStringRedisTemplate redis;

	private final String keyPrefix;

	private final Map<String, Map<String, TierLayout>> layouts = new ConcurrentHashMap<>();

	/**
	 * Whether a call was answered and none failed since, so the connection is open.
	 * Until then a call first waits for {@link #open()}. Once open, Lettuce reconnects
	 * in the background, so a call cut short by a timeout leaves this as it is: under
	 * load, waiting for the connection again would only add to the delay.
	 */
	private volatile boolean connected;

	/**
	 * The opening of the connection in progress or done, shared by every call that
	 * waits for it; cleared when it fails, so that the next call tries again.
	 */
	private final AtomicReference<Mono<Void>> opening = new AtomicReference<>();

	/**
	 * @param redis the template to call Redis with
	 * @param keyPrefix the prefix of every key, from {@code ratelimit.redis.key-prefix}
	 */
	public BucketScript(ReactiveStringRedisTemplate redis, String keyPrefix) {
		if (keyPrefix == null || keyPrefix.isBlank() || keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
			throw new IllegalArgumentException("ratelimit.redis.key-prefix must be non-blank and without '{' or '}' "
					+ "(they would break the keys' cluster hash tag) but was '" + keyPrefix + "'");
		}
		this.redis = redis;
		this.keyPrefix = keyPrefix;
		this.script = RedisScript.of(source(), List.class);
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
	 * The SHA-1 Redis knows the script by.
	 */
	public String sha1() {
		return this.script.getSha1();
	}

	/**
	 * A PING, opening the connection if it is not open.
	 */
	Mono<Void> ping() {
		return onRedis(this.redis.execute((connection) -> connection.ping())).then();
	}

	/**
	 * Judge {@code cost} against every limit of the bucket, atomically.
	 */
	Mono<Decision[]> acquire(TierLayout layout, String clientKey, long cost) {
		return call(layout, clientKey, layout.arguments("acquire", cost, 0, 0, 0, 1))
			.map((reply) -> decisions(layout.tier(), reply, 0));
	}

	/**
	 * Give back {@code refund} units leased at {@code refundAtMicros}, lease up to
	 * {@code want} units, count {@code requests} judged locally, and judge
	 * {@code cost} against what is left.
	 */
	Mono<LeaseReply> lease(TierLayout layout, String clientKey, long cost, long want, long refund,
			long refundAtMicros, long requests) {
		return call(layout, clientKey,
				layout.arguments("lease", cost, want, refund, refundAtMicros, requests))
			.map((reply) -> new LeaseReply((Long) reply.get(0), (Long) reply.get(1),
					decisions(layout.tier(), reply, 2)));
	}

	/**
	 * The bucket as it stands, consuming nothing; empty when it is not live.
	 */
	Mono<BucketSnapshot> peek(BucketId id, TierLayout layout) {
		return call(layout, id.key(), layout.arguments("peek", 0, 0, 0, 0, 0))
			.filter((reply) -> !reply.isEmpty())
			.map((reply) -> snapshot(id, layout.tier(), reply));
	}

	/**
	 * Delete every key of the bucket.
	 * @return whether it was live
	 */
	Mono<Boolean> delete(TierLayout layout, String clientKey) {
		return onRedis(this.redis.delete(Flux.fromIterable(layout.keys(clientKey))).flux()).single()
			.map((deleted) -> deleted > 0);
	}

	/**
	 * The live buckets of a policy, walked with SCAN in bounded batches.
	 */
	Flux<BucketSnapshot> buckets(RateLimitPolicy policy) {
		return scan(policy).concatMap((metaKey) -> {
			for (TierLayout layout : layouts(policy)) {
				String clientKey = layout.clientKeyOf(metaKey);
				if (clientKey != null) {
					return peek(new BucketId(policy.id(), layout.tier().name(), clientKey), layout);
				}
			}
			return Mono.empty();
		}, 8);
	}

	/**
	 * The live buckets of one client key, one per tier it was judged under.
	 */
	Flux<BucketSnapshot> bucket(RateLimitPolicy policy, String clientKey) {
		return Flux.fromIterable(layouts(policy))
			.concatMap((layout) -> peek(new BucketId(policy.id(), layout.tier().name(), clientKey), layout));
	}

	/**
	 * Forget every bucket of one client key.
	 * @return whether there was one
	 */
	Mono<Boolean> reset(RateLimitPolicy policy, String clientKey) {
		// One DEL per tier: different tiers are different hash tags, maybe different
		// cluster slots.
		return Flux.fromIterable(layouts(policy))
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
	 * The layout of a tier, computed on first use.
	 */
	TierLayout layout(String policy, Tier tier) {
		Map<String, TierLayout> tiers = this.layouts.computeIfAbsent(policy, (id) -> new ConcurrentHashMap<>());
		TierLayout layout = tiers.get(tier.name());
		if (layout == null || layout.tier() != tier) {
			layout = new TierLayout(this.keyPrefix, policy, tier);
			tiers.put(tier.name(), layout);
		}
		return layout;
	}

	private Collection<TierLayout> layouts(RateLimitPolicy policy) {
		Set<Tier> tiers = new LinkedHashSet<>(policy.tiers().values());
		tiers.add(policy.defaultTier());
		List<TierLayout> layouts = new ArrayList<>(tiers.size());
		for (Tier tier : tiers) {
			layouts.add(layout(policy.id(), tier));
		}
		return layouts;
	}

	private Flux<String> scan(RateLimitPolicy policy) {
		// The escaped policy id holds no ':' and no glob character: the pattern matches the
		// policy's meta keys and no other policy's.
		String pattern = escapeGlob(this.keyPrefix) + ":{" + TierLayout.escape(policy.id()) + ":*}:m";
		return onRedis(this.redis.scan(ScanOptions.scanOptions().match(pattern).count(SCAN_BATCH).build()));
	}

	@SuppressWarnings("unchecked")
	private Mono<List<Object>> call(TierLayout layout, String clientKey, List<String> arguments) {
		return onRedis(this.redis.execute(this.script, layout.keys(clientKey), arguments)).collectList()
			.map(BucketScript::flatten);
	}

	/**
	 * A call to Redis that never blocks the thread subscribing to it: while the
	 * connection is not known to be open, it waits for {@link #open()} first.
	 */
	private <T> Flux<T> onRedis(Flux<T> call) {
		Flux<T> tracked = call.doFinally((signal) -> {
			if (signal == SignalType.ON_COMPLETE) {
				this.connected = true;
			}
			else if (signal == SignalType.ON_ERROR) {
				this.connected = false;
				this.opening.set(null);
			}
		});
		return this.connected ? tracked : open().thenMany(tracked);
	}

	/**
	 * Opens the connection on another thread, once for every call waiting for it.
	 * Spring Data opens the shared Lettuce connection synchronously in whichever thread
	 * first subscribes to a command, which is a request's event loop; against a Redis
	 * that accepts connections but does not answer, it waits for Lettuce's command
	 * timeout (a minute by default), out of reach of any Reactor timeout, with every
	 * other request of that event loop. Here one thread at most waits; a caller that
	 * gives up (a timeout) does not cancel the opening, so its outcome is still seen.
	 */
	private Mono<Void> open() {
		while (true) {
			Mono<Void> current = this.opening.get();
			if (current != null) {
				return current;
			}
			Mono<Void> attempt = Mono
				.<Void>fromRunnable(() -> this.redis.getConnectionFactory().getReactiveConnection().close())
				.subscribeOn(Schedulers.boundedElastic())
				.cache();
			if (this.opening.compareAndSet(null, attempt)) {
				attempt.subscribe(null, (failure) -> this.opening.compareAndSet(attempt, null));
				return attempt;
			}
		}
	}

	/**
	 * A multi-bulk reply arrives as one list or as its elements, depending on the
	 * driver; either way, its elements.
	 */
	@SuppressWarnings({ "rawtypes", "unchecked" })
	private static List<Object> flatten(List<List> reply) {
		if (reply.size() == 1 && reply.get(0) instanceof List<?> only) {
			return (List<Object>) only;
		}
		return (List<Object>) (List) reply;
	}

	private static Decision[] decisions(Tier tier, List<Object> reply, int offset) {
		List<Limit> limits = tier.limits();
		Decision[] decisions = new Decision[limits.size()];
		for (int i = 0; i < decisions.length; i++) {
			int at = offset + i * 4;
			decisions[i] = new Decision(longAt(reply, at) == 1, longAt(reply, at + 1), limits.get(i).quota(),
					longAt(reply, at + 2) * NANOS_PER_MICRO, longAt(reply, at + 3) * NANOS_PER_MICRO);
		}
		return decisions;
	}

	private static BucketSnapshot snapshot(BucketId id, Tier tier, List<Object> reply) {
		List<Limit> limits = tier.limits();
		List<LimitSnapshot> snapshots = new ArrayList<>(limits.size());
		for (int i = 0; i < limits.size(); i++) {
			Limit limit = limits.get(i);
			int at = 1 + i * 5;
			Decision now = new Decision(true, longAt(reply, at), limit.quota(), longAt(reply, at + 1) * NANOS_PER_MICRO,
					0);
			Map<String, Number> state = new LinkedHashMap<>();
			List<String> names = STATE_NAMES.get(limit.algorithm());
			for (int j = 0; j < names.size(); j++) {
				state.put(names.get(j), number(String.valueOf(reply.get(at + 2 + j))));
			}
			snapshots.add(new LimitSnapshot(limit.algorithm().configName(), limit.quota(), now.remaining(),
					now.resetSeconds(), state));
		}
		return new BucketSnapshot(id, longAt(reply, 0), snapshots);
	}

	private static long longAt(List<Object> reply, int index) {
		Object value = reply.get(index);
		return (value instanceof Number number) ? number.longValue() : Long.parseLong(String.valueOf(value));
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

	private static String source() {
		StringBuilder source = new StringBuilder();
		for (String file : SOURCES) {
			try (InputStream in = BucketScript.class.getResourceAsStream(file)) {
				if (in == null) {
					throw new IllegalStateException("Lua source " + file + " is missing from the classpath");
				}
				source.append(new String(in.readAllBytes(), StandardCharsets.UTF_8)).append('\n');
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot read Lua source " + file, ex);
			}
		}
		return source.toString();
	}

	/**
	 * What a lease call answered.
	 *
	 * @param granted units leased to this node
	 * @param atMicros the Redis time of the lease, to give unused units back against
	 * @param decisions each limit's decision on {@code cost} after the lease, so what
	 * is left for other nodes
	 */
	record LeaseReply(long granted, long atMicros, Decision[] decisions) {
	}

}
