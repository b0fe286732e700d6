package dev.ratelimit.store.redis;

import java.nio.ByteBuffer;
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
import java.util.function.Function;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.Tier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The calls of the limiter's scripts on a bucket: a request judged ({@code acquire}, or
 * {@code check} for one whose cost is taken after its response), a lease taken
 * ({@code lease}), an exchange settled ({@code settle}), a node's slot leases renewed
 * ({@code renew}), a bucket described ({@code peek}, for {@link BucketReader}), and the
 * start-up warm-up. Its slots are filed under a {@link SlotLease} of its own.
 * The scripts are {@link ScriptAssembler}'s: the common call, an acquire on a tier of
 * one limit, takes that limit's lean script, made on first use, every other the generic
 * one. Spring Data calls a script by SHA ({@code EVALSHA}) and sends it again
 * ({@code EVAL}, which caches it) when Redis answers {@code NOSCRIPT}, after a restart or
 * a {@code SCRIPT FLUSH}.
 */
public final class BucketScript {

	/**
	 * The default of {@code ratelimit.redis.slot-lease-time}.
	 */
	public static final Duration DEFAULT_SLOT_LEASE = Duration.ofSeconds(30);

	/**
	 * The limits of the start-up warm-up: one of each algorithm, one request a second.
	 */
	static final List<Limit> WARM_UP_LIMITS = List.of(new FixedWindow(1, Duration.ofSeconds(1)),
			new SlidingWindowLog(1, Duration.ofSeconds(1)), new SlidingWindowCounter(1, Duration.ofSeconds(1)),
			new TokenBucket(1, 1, Duration.ofSeconds(1)), new LeakyBucket(1, 1, Duration.ofSeconds(1)));

	@SuppressWarnings("rawtypes")
	private final RedisScript<List> script;

	/**
	 * The lean scripts by limit, equal limits of several tiers sharing one.
	 */
	@SuppressWarnings("rawtypes")
	private final Map<LeanLimit, RedisScript<List>> leanScripts = new ConcurrentHashMap<>();

	/**
	 * The penalized forms, for the policies with a penalty box.
	 */
	@SuppressWarnings("rawtypes")
	private final RedisScript<List> penalizedScript;

	@SuppressWarnings("rawtypes")
	private final Map<LeanLimit, RedisScript<List>> penalizedLeanScripts = new ConcurrentHashMap<>();

	@SuppressWarnings("rawtypes")
	private final RedisScript<List> blockPeekScript;

	private final RedisConnection connection;

	private final RedisLayouts layouts;

	private final SlotLease slots;

	/**
	 * A script whose slots are leased for {@link #DEFAULT_SLOT_LEASE}: that of a store
	 * whose policies count no request in flight.
	 * @param redis the template to call Redis with
	 * @param keyPrefix the prefix of every key, from {@code ratelimit.redis.key-prefix}
	 */
	public BucketScript(ReactiveStringRedisTemplate redis, String keyPrefix) {
		this(redis, keyPrefix, DEFAULT_SLOT_LEASE);
	}

	/**
	 * @param redis the template to call Redis with
	 * @param keyPrefix the prefix of every key, from {@code ratelimit.redis.key-prefix}
	 * @param slotLease how long a slot of a limit that counts requests in flight lives
	 * unless renewed, from {@code ratelimit.redis.slot-lease-time}
	 */
	public BucketScript(ReactiveStringRedisTemplate redis, String keyPrefix, Duration slotLease) {
		this.slots = SlotLease.of(slotLease);
		this.layouts = new RedisLayouts(keyPrefix);
		this.connection = new RedisConnection(redis);
		this.script = RedisScript.of(ScriptAssembler.generic(), List.class);
		this.penalizedScript = RedisScript.of(ScriptAssembler.penalizedGeneric(), List.class);
		this.blockPeekScript = RedisScript.of(ScriptAssembler.blockPeek(), List.class);
	}

	SlotLease slots() {
		return this.slots;
	}

	RedisConnection connection() {
		return this.connection;
	}

	public RedisLayouts layouts() {
		return this.layouts;
	}

	/**
	 * Loads the generic scripts and, for a store that judges with them, the lean scripts
	 * of the tiers of {@code policies} into Redis's script cache ({@code SCRIPT LOAD}),
	 * then makes {@code rounds} bursts of {@code burst} concurrent calls of the generic
	 * scripts and, again for such a store, each algorithm's lean script, on keys of the
	 * warm-up's own ({@link RedisLayout#warmUp(String, Tier)}): a node's first requests
	 * then find their script cached, so that {@code EVALSHA} answers at once rather than
	 * {@code NOSCRIPT} and an {@code EVAL} of the whole source, and find the code that
	 * calls Redis and reads its replies loaded and compiled. Every warm-up limit allows
	 * one request a second: its keys expire within seconds, and both verdicts are
	 * exercised.
	 * @param lean whether the store judges with lean scripts (the exact store, not the
	 * hybrid one)
	 * @param policies the policies whose tiers this node judges with lean scripts, the
	 * penalized form too for those with a penalty box
	 */
	@SuppressWarnings("rawtypes")
	Mono<Void> warmUp(int rounds, int burst, boolean lean, Collection<RateLimitPolicy> policies) {
		String prefix = this.layouts.keyPrefix();
		List<RedisLayout> warmUpLayouts = new ArrayList<>();
		if (lean) {
			for (Limit limit : WARM_UP_LIMITS) {
				warmUpLayouts.add(RedisLayout.warmUp(prefix, new Tier(limit.algorithm().configName(), List.of(limit))));
			}
		}
		Set<RedisScript<List>> scripts = new LinkedHashSet<>(List.of(this.script, this.penalizedScript));
		for (RedisLayout layout : warmUpLayouts) {
			scripts.add(leanScript(layout.leanLimit()));
			scripts.add(penalizedLeanScript(layout.leanLimit()));
		}
		scripts.addAll(leanScripts(leanLimits(policies)));
		List<Mono<?>> calls = new ArrayList<>();
		for (RedisLayout layout : warmUpLayouts) {
			calls.add(Mono.defer(() -> acquire(layout, "warm-up", 1)));
		}
		RedisLayout generic = RedisLayout.warmUp(prefix, new Tier("generic", WARM_UP_LIMITS));
		calls.add(Mono.defer(() -> acquire(generic, "warm-up", 1)));
		calls.add(Mono.defer(() -> lease(generic, "warm-up", 1, 2, 1, Refund.NONE, Refund.NONE)));
		Mono<Void> round = Flux.range(0, burst).flatMap((call) -> Flux.fromIterable(calls).flatMap(Mono::then)).then();
		return load(scripts).then(Flux.range(0, rounds).concatMap((each) -> round).then());
	}

	/**
	 * After a live reload, keeps only the lean scripts of the tiers of {@code policies},
	 * those in force, and loads them into Redis's script cache, as the start-up's
	 * warm-up does: a limit the reload added finds its script cached on its first
	 * request, and the scripts of the limits it removed or changed are forgotten.
	 * @param policies the policies in force whose tiers this node judges with lean
	 * scripts
	 */
	Mono<Void> inForce(Collection<RateLimitPolicy> policies) {
		Map<LeanLimit, Boolean> limits = leanLimits(policies);
		this.leanScripts.keySet().retainAll(limits.keySet());
		this.penalizedLeanScripts.keySet().removeIf((limit) -> !limits.getOrDefault(limit, false));
		return load(leanScripts(limits));
	}

	/**
	 * The lean limits of the tiers of {@code policies}, each with whether a policy with a
	 * penalty box judges it, so needs the penalized form too.
	 */
	private Map<LeanLimit, Boolean> leanLimits(Collection<RateLimitPolicy> policies) {
		Map<LeanLimit, Boolean> limits = new LinkedHashMap<>();
		for (RateLimitPolicy policy : policies) {
			for (RedisLayout layout : this.layouts.layouts(policy)) {
				LeanLimit limit = layout.leanLimit();
				if (limit != null) {
					limits.merge(limit, policy.penalty() != null, Boolean::logicalOr);
				}
			}
		}
		return limits;
	}

	/**
	 * The scripts of {@code limits}, as {@link #leanLimits} gives them.
	 */
	@SuppressWarnings("rawtypes")
	private Set<RedisScript<List>> leanScripts(Map<LeanLimit, Boolean> limits) {
		Set<RedisScript<List>> scripts = new LinkedHashSet<>();
		limits.forEach((limit, penalized) -> {
			scripts.add(leanScript(limit));
			if (penalized) {
				scripts.add(penalizedLeanScript(limit));
			}
		});
		return scripts;
	}

	/**
	 * {@code SCRIPT LOAD} of each of {@code scripts}, one after the other.
	 */
	@SuppressWarnings("rawtypes")
	private Mono<Void> load(Collection<RedisScript<List>> scripts) {
		return Flux.fromIterable(scripts)
			.concatMap((script) -> this.connection.onRedis(this.connection.template()
				.execute((connection) -> connection.scriptingCommands()
					.scriptLoad(ByteBuffer.wrap(script.getScriptAsString().getBytes(StandardCharsets.UTF_8))))))
			.then();
	}

	/**
	 * Lean scripts this node holds, for tests: one per limit in force, the penalized
	 * forms counted apart.
	 */
	int leanScriptCount() {
		return this.leanScripts.size() + this.penalizedLeanScripts.size();
	}

	/**
	 * Judge {@code cost} against every limit of the bucket, atomically.
	 */
	@SuppressWarnings("unchecked")
	Mono<Decision[]> acquire(RedisLayout layout, String clientKey, long cost) {
		LeanLimit lean = layout.leanLimit();
		if (lean != null) {
			return this.connection
				.onRedis(this.connection.template()
					.execute(leanScript(lean), layout.leanKeys(clientKey), layout.leanArguments(cost)))
				.collectList()
				.map((reply) -> ScriptReplies.decisions(layout.tier(), ScriptReplies.flatten(reply), 0));
		}
		return call(layout, clientKey, "acquire", cost, 0, 1, Refund.NONE, Refund.NONE)
			.map((reply) -> ScriptReplies.decisions(layout.tier(), reply, 0));
	}

	/**
	 * Judge each of {@code costs} in turn against the bucket's one limit, in one call of
	 * its lean script, as if each came alone, and count {@code refusedHere} requests more
	 * as judged (refused by this node by itself); one decision per cost, in order.
	 * @throws IllegalArgumentException for a tier without a lean script
	 */
	@SuppressWarnings("unchecked")
	Mono<Decision[]> acquireEach(RedisLayout layout, String clientKey, long[] costs, long refusedHere) {
		LeanLimit lean = layout.leanLimit();
		if (lean == null) {
			throw new IllegalArgumentException("Tier '" + layout.tier().name() + "' has no lean script");
		}
		return this.connection
			.onRedis(this.connection.template()
				.execute(leanScript(lean), layout.leanKeys(clientKey),
						layout.leanArguments(costs, refusedHere)))
			.collectList()
			.map((reply) -> ScriptReplies.eachDecision(layout.tier(), ScriptReplies.flatten(reply), costs.length));
	}

	/**
	 * Judge {@code cost} against every limit of the bucket with the generic script,
	 * counting {@code requests} as judged: this one and those refused by this node by
	 * itself since its last call.
	 */
	Mono<Decision[]> acquire(RedisLayout layout, String clientKey, long cost, long requests) {
		return call(layout, clientKey, "acquire", cost, 0, requests, Refund.NONE, Refund.NONE)
			.map((reply) -> ScriptReplies.decisions(layout.tier(), reply, 0));
	}

	/**
	 * {@link #check(RedisLayout, String, long)}, counting {@code requests} as judged.
	 */
	Mono<Decision[]> check(RedisLayout layout, String clientKey, long cost, long requests) {
		return call(layout, clientKey, "check", cost, 0, requests, Refund.NONE, Refund.NONE)
			.map((reply) -> ScriptReplies.decisions(layout.tier(), reply, 0));
	}

	/**
	 * Judge {@code cost} against every limit of the bucket under a penalty box,
	 * atomically with the client's block: refused at once while blocked, a block started
	 * on a breach.
	 */
	Mono<Verdict> acquire(RedisLayout layout, String clientKey, long cost, RedisPenalty penalty) {
		LeanLimit lean = layout.leanLimit();
		if (lean != null) {
			return penalized(penalizedLeanScript(lean), layout, clientKey,
					layout.leanKeys(clientKey), layout.leanArguments(cost), penalty);
		}
		return penalized(this.penalizedScript, layout, clientKey, layout.keys(clientKey),
				layout.arguments("acquire", cost, 0, 1, Refund.NONE, Refund.NONE, this.slots), penalty);
	}

	/**
	 * Check {@code cost} as {@link #check(RedisLayout, String, long)} does, under a
	 * penalty box as {@link #acquire(RedisLayout, String, long, RedisPenalty)} judges.
	 */
	Mono<Verdict> check(RedisLayout layout, String clientKey, long cost, RedisPenalty penalty) {
		return penalized(this.penalizedScript, layout, clientKey, layout.keys(clientKey),
				layout.arguments("check", cost, 0, 1, Refund.NONE, Refund.NONE, this.slots), penalty);
	}

	@SuppressWarnings("rawtypes")
	private RedisScript<List> leanScript(LeanLimit limit) {
		return scriptOf(this.leanScripts, limit, ScriptAssembler::lean);
	}

	@SuppressWarnings("rawtypes")
	private RedisScript<List> penalizedLeanScript(LeanLimit limit) {
		return scriptOf(this.penalizedLeanScripts, limit, ScriptAssembler::penalizedLean);
	}

	/**
	 * The limit's script among {@code scripts}, made by {@code assembler} the first time.
	 */
	@SuppressWarnings("rawtypes")
	private static RedisScript<List> scriptOf(Map<LeanLimit, RedisScript<List>> scripts, LeanLimit limit,
			Function<LeanLimit, String> assembler) {
		RedisScript<List> script = scripts.get(limit);
		return (script != null) ? script
				: scripts.computeIfAbsent(limit, (made) -> RedisScript.of(assembler.apply(made), List.class));
	}

	/**
	 * The client's block in force, touching nothing; empty when it is not blocked.
	 */
	@SuppressWarnings("unchecked")
	Mono<List<Object>> peekBlock(RedisLayout layout, String clientKey) {
		return this.connection
			.onRedis(this.connection.template()
				.execute(this.blockPeekScript, List.of(layout.blockKey(clientKey)), List.of()))
			.collectList()
			.map(ScriptReplies::flatten)
			.filter((reply) -> !reply.isEmpty());
	}

	@SuppressWarnings({ "rawtypes", "unchecked" })
	private Mono<Verdict> penalized(RedisScript<List> script, RedisLayout layout, String clientKey,
			List<String> keys, List<String> arguments, RedisPenalty penalty) {
		return this.connection
			.onRedis(this.connection.template()
				.execute(script, penalty.keys(keys, layout.blockKey(clientKey)), penalty.arguments(arguments)))
			.collectList()
			.map((reply) -> ScriptReplies.penalized(layout.tier(), ScriptReplies.flatten(reply)));
	}

	/**
	 * Give back the units of both refunds, lease up to {@code want} units, count
	 * {@code requests} judged locally, and judge {@code cost} against what is left.
	 */
	public Mono<LeaseReply> lease(RedisLayout layout, String clientKey, long cost, long want, long requests, Refund first,
			Refund second) {
		return call(layout, clientKey, "lease", cost, want, requests, first, second)
			.map((reply) -> new LeaseReply(ScriptReplies.longAt(reply, 0), ScriptReplies.longAt(reply, 1),
					ScriptReplies.decisions(layout.tier(), reply, ScriptProtocol.LEASE_HEADER_VALUES)));
	}

	/**
	 * Judge {@code cost} against every limit of the bucket as {@link #acquire} does,
	 * taking only the slots of the limits that count requests in flight.
	 */
	Mono<Decision[]> check(RedisLayout layout, String clientKey, long cost) {
		return call(layout, clientKey, "check", cost, 0, 1, Refund.NONE, Refund.NONE)
			.map((reply) -> ScriptReplies.decisions(layout.tier(), reply, 0));
	}

	/**
	 * Charge {@code units} (above {@code 0}) to every limit of the bucket or give them
	 * back (below) as taken {@code heldMicros} ago, and, the exchange {@code ended}, give
	 * back its slots.
	 * @return the limits after settling, as a peek describes them; empty when there is no
	 * bucket
	 */
	Mono<Decision[]> settle(RedisLayout layout, String clientKey, long units, long heldMicros, boolean ended) {
		return call(layout, clientKey, layout.settleArguments(units, heldMicros, ended, this.slots))
			.filter((reply) -> !reply.isEmpty())
			.map((reply) -> ScriptReplies.described(layout.tier(), reply));
	}

	/**
	 * Renew this node's lease on the bucket's slots, {@code held} of them at most: those
	 * it still counts.
	 */
	Mono<Void> renew(RedisLayout layout, String clientKey, long held) {
		return call(layout, clientKey, layout.renewArguments(held, this.slots)).then();
	}

	/**
	 * One call of the script on the bucket of {@code clientKey}, its reply as a list.
	 */
	Mono<List<Object>> call(RedisLayout layout, String clientKey, String mode, long cost, long want, long requests,
			Refund first, Refund second) {
		return call(layout, clientKey, layout.arguments(mode, cost, want, requests, first, second, this.slots));
	}

	@SuppressWarnings("unchecked")
	private Mono<List<Object>> call(RedisLayout layout, String clientKey, List<String> arguments) {
		return this.connection
			.onRedis(this.connection.template().execute(this.script, layout.keys(clientKey), arguments))
			.collectList()
			.map(ScriptReplies::flatten);
	}

	/**
	 * What a lease call answered.
	 *
	 * @param granted units leased to this node
	 * @param atMicros the Redis time of the lease, to give unused units back against
	 * @param decisions each limit's decision on {@code cost} after the lease, so what
	 * is left for other nodes
	 */
	public record LeaseReply(long granted, long atMicros, Decision[] decisions) {
	}

}
