package dev.ratelimit.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.algorithm.Algorithm;
import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.Tier;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.scheduler.Schedulers;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The limiter's Lua scripts and the decision side of the Redis buckets: a request
 * judged ({@code acquire}) and a lease taken ({@code lease}); {@link BucketReader} is
 * the read side. The generic script, for every call, is {@link ScriptProtocol}'s
 * constants, the algorithms' files and the driver concatenated once. The common call,
 * an acquire on a tier of one limit, takes its algorithm's lean script instead
 * ({@link #leanSource(Algorithm)}): the same decision and the same stored text,
 * without the generic driver's per-call set-up. Spring Data
 * calls it by SHA ({@code EVALSHA}) and sends it again ({@code EVAL}, which caches
 * it) when Redis answers {@code NOSCRIPT}, after a restart or a {@code SCRIPT FLUSH}.
 */
public final class BucketScript {

	/**
	 * In order, after the protocol's constants: shared helpers first, the driver last.
	 */
	private static final List<String> SOURCES = List.of("header.lua", "algorithms.lua", "fixed_window.lua",
			"sliding_window_log.lua",
			"sliding_window_counter.lua", "token_bucket.lua", "leaky_bucket.lua", "driver.lua");

	private static final long NANOS_PER_MICRO = 1_000;

	/**
	 * The limits of the start-up warm-up: one of each algorithm, one request a second.
	 */
	private static final List<Limit> WARM_UP_LIMITS = List.of(new FixedWindow(1, Duration.ofSeconds(1)),
			new SlidingWindowLog(1, Duration.ofSeconds(1)), new SlidingWindowCounter(1, Duration.ofSeconds(1)),
			new TokenBucket(1, 1, Duration.ofSeconds(1)), new LeakyBucket(1, 1, Duration.ofSeconds(1)));

	@SuppressWarnings("rawtypes")
	private final RedisScript<List> script;

	@SuppressWarnings("rawtypes")
	private final Map<Algorithm, RedisScript<List>> leanScripts = new EnumMap<>(Algorithm.class);

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
	private final AtomicReference<@Nullable Mono<Void>> opening = new AtomicReference<>();

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
		for (Algorithm algorithm : Algorithm.values()) {
			this.leanScripts.put(algorithm, RedisScript.of(leanSource(algorithm), List.class));
		}
	}

	/**
	 * A PING, opening the connection if it is not open.
	 */
	Mono<Void> ping() {
		return onRedis(this.redis.execute((connection) -> connection.ping())).then();
	}

	/**
	 * Loads every script into Redis's script cache ({@code SCRIPT LOAD}), then makes
	 * {@code rounds} bursts of {@code burst} concurrent calls of each, on keys of the
	 * warm-up's own ({@link TierLayout#warmUp(String, Tier)}): a node's first requests
	 * then find their script cached, so that {@code EVALSHA} answers at once rather than
	 * {@code NOSCRIPT} and an {@code EVAL} of the whole source, and find the code that
	 * calls Redis and reads its replies loaded and compiled. Every warm-up limit allows
	 * one request a second: its keys expire within seconds, and both verdicts are
	 * exercised.
	 */
	@SuppressWarnings("rawtypes")
	Mono<Void> warmUp(int rounds, int burst) {
		List<RedisScript<List>> scripts = new ArrayList<>(this.leanScripts.values());
		scripts.add(this.script);
		Mono<Void> load = Flux.fromIterable(scripts)
			.concatMap((script) -> onRedis(this.redis.execute((connection) -> connection.scriptingCommands()
				.scriptLoad(ByteBuffer.wrap(script.getScriptAsString().getBytes(StandardCharsets.UTF_8))))))
			.then();
		List<Mono<?>> calls = new ArrayList<>();
		for (Limit limit : WARM_UP_LIMITS) {
			TierLayout lean = TierLayout.warmUp(this.keyPrefix, new Tier(limit.algorithm().configName(), List.of(limit)));
			calls.add(Mono.defer(() -> acquire(lean, "warm-up", 1)));
		}
		TierLayout generic = TierLayout.warmUp(this.keyPrefix, new Tier("generic", WARM_UP_LIMITS));
		calls.add(Mono.defer(() -> acquire(generic, "warm-up", 1)));
		calls.add(Mono.defer(() -> lease(generic, "warm-up", 1, 2, 1, Refund.NONE, Refund.NONE)));
		Mono<Void> round = Flux.range(0, burst).flatMap((call) -> Flux.fromIterable(calls).flatMap(Mono::then)).then();
		return load.then(Flux.range(0, rounds).concatMap((each) -> round).then());
	}

	/**
	 * Judge {@code cost} against every limit of the bucket, atomically.
	 */
	@SuppressWarnings("unchecked")
	Mono<Decision[]> acquire(TierLayout layout, String clientKey, long cost) {
		Algorithm lean = layout.leanAlgorithm();
		if (lean != null) {
			return onRedis(this.redis.execute(this.leanScripts.get(lean), layout.leanKeys(clientKey),
					layout.leanArguments(cost)))
				.collectList()
				.map((reply) -> decisions(layout.tier(), flatten(reply), 0));
		}
		return call(layout, clientKey, "acquire", cost, 0, 1, Refund.NONE, Refund.NONE)
			.map((reply) -> decisions(layout.tier(), reply, 0));
	}

	/**
	 * Give back the units of both refunds, lease up to {@code want} units, count
	 * {@code requests} judged locally, and judge {@code cost} against what is left.
	 */
	Mono<LeaseReply> lease(TierLayout layout, String clientKey, long cost, long want, long requests, Refund first,
			Refund second) {
		return call(layout, clientKey, "lease", cost, want, requests, first, second)
			.map((reply) -> new LeaseReply(longAt(reply, 0), longAt(reply, 1),
					decisions(layout.tier(), reply, ScriptProtocol.LEASE_HEADER_VALUES)));
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

	/**
	 * The layouts of every tier of a policy, its default tier included.
	 */
	Collection<TierLayout> layouts(RateLimitPolicy policy) {
		Set<Tier> tiers = new LinkedHashSet<>(policy.tiers().values());
		tiers.add(policy.defaultTier());
		List<TierLayout> layouts = new ArrayList<>(tiers.size());
		for (Tier tier : tiers) {
			layouts.add(layout(policy.id(), tier));
		}
		return layouts;
	}

	/**
	 * One call of the script on the bucket of {@code clientKey}, its reply as a list.
	 */
	@SuppressWarnings("unchecked")
	Mono<List<Object>> call(TierLayout layout, String clientKey, String mode, long cost, long want, long requests,
			Refund first, Refund second) {
		List<String> arguments = layout.arguments(mode, cost, want, requests, first, second);
		return onRedis(this.redis.execute(this.script, layout.keys(clientKey), arguments)).collectList()
			.map(BucketScript::flatten);
	}

	ReactiveStringRedisTemplate redis() {
		return this.redis;
	}

	String keyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * A call to Redis that never blocks the thread subscribing to it: while the
	 * connection is not known to be open, it waits for {@link #open()} first.
	 */
	<T> Flux<T> onRedis(Flux<T> call) {
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
			int at = offset + i * ScriptProtocol.DECISION_VALUES;
			decisions[i] = new Decision(longAt(reply, at) == 1, longAt(reply, at + 1), limits.get(i).quota(),
					microsAt(reply, at + 2), microsAt(reply, at + 3));
		}
		return decisions;
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

	/**
	 * The script as Redis runs it: the protocol's constants, then the Lua files.
	 */
	static String source() {
		return concatenate(ScriptProtocol.luaConstants(), SOURCES);
	}

	/**
	 * The lean acquire script of an algorithm: the shared helpers, the bucket key read,
	 * the algorithm in straight lines, the write. It uses
	 * none of the protocol's named constants: its arguments are few and fixed
	 * ({@link ScriptProtocol#LEAN_ARGUMENTS}).
	 */
	static String leanSource(Algorithm algorithm) {
		List<String> files = new ArrayList<>(List.of("header.lua", "lean_read.lua",
				"lean_" + algorithm.name().toLowerCase(Locale.ROOT) + ".lua"));
		// The two buckets answer alike once each knows its shortfall: one home for that.
		if (algorithm == Algorithm.TOKEN_BUCKET || algorithm == Algorithm.LEAKY_BUCKET) {
			files.add("lean_bucket_reply.lua");
		}
		files.add("lean_write.lua");
		return concatenate("", files);
	}

	private static String concatenate(String prefix, List<String> files) {
		StringBuilder source = new StringBuilder(prefix);
		for (String file : files) {
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
