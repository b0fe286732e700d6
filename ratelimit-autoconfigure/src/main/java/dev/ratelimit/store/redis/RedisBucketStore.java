package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.ratelimit.algorithm.Penalty;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.store.StoreHealth;
import dev.ratelimit.support.MonotonicClock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.SmartLifecycle;

/**
 * Exact limits across a fleet: every decision is one atomic Lua script on Redis (one
 * round trip), timed by the Redis server's clock, so that any number of gateway nodes
 * share each bucket exactly. When Redis fails or is slower than the timeout, the
 * {@link RemoteFailureGuard} decides.
 * <p>
 * The slots of a limit that counts requests in flight are leases of this store's
 * ({@link SlotLease}), which it renews in the background ({@link HeldSlots}) while its
 * requests are in flight: a node that stops, crashes or cannot reach Redis for longer
 * than a lease loses them to the other nodes.
 */
public final class RedisBucketStore extends RemoteBucketStore implements SmartInitializingSingleton, SmartLifecycle {

	/**
	 * The store's name, as in {@code ratelimit.store}.
	 */
	public static final String NAME = StoreType.REDIS.storeName();

	private static final long NANOS_PER_MICRO = 1_000;

	/**
	 * The default of {@code ratelimit.redis.shared-calls.max-batch}.
	 */
	public static final int DEFAULT_MAX_BATCH = 64;

	private static final Log logger = LogFactory.getLog(RedisBucketStore.class);

	private final HeldSlots heldSlots = new HeldSlots();

	private final SharedCalls sharedCalls;

	private final SharedCalls.Judge acquiring = new Judging(false);

	private final SharedCalls.Judge checking = new Judging(true);

	private final Supplier<? extends Collection<RateLimitPolicy>> policies;

	/**
	 * @param script the bucket script, bound to the key prefix
	 * @param timeout longest a decision may wait on Redis
	 * @param guard what to decide when Redis fails
	 * @param clock the clock health's PING is timed with
	 */
	public RedisBucketStore(BucketScript script, Duration timeout, RemoteFailureGuard guard, MonotonicClock clock) {
		this(script, timeout, guard, clock, DEFAULT_MAX_BATCH, true);
	}

	/**
	 * @param script the bucket script, bound to the key prefix
	 * @param timeout longest a decision may wait on Redis, queued behind a shared call
	 * included
	 * @param guard what to decide when Redis fails
	 * @param clock the clock health's PING is timed with, and refusals repeated by this
	 * node are counted on
	 * @param maxBatch most concurrent requests of one bucket one call judges
	 * ({@code ratelimit.redis.shared-calls.max-batch}); {@code 1}: each its own call
	 * @param refuseLocally whether this node repeats Redis's refusal of a bucket until
	 * its retry-after ({@code ratelimit.redis.local-refusals})
	 */
	public RedisBucketStore(BucketScript script, Duration timeout, RemoteFailureGuard guard, MonotonicClock clock,
			int maxBatch, boolean refuseLocally) {
		this(script, timeout, guard, clock, maxBatch, refuseLocally, List::of);
	}

	/**
	 * @param script the bucket script, bound to the key prefix
	 * @param timeout longest a decision may wait on Redis, queued behind a shared call
	 * included
	 * @param guard what to decide when Redis fails
	 * @param clock the clock health's PING is timed with, and refusals repeated by this
	 * node are counted on
	 * @param maxBatch most concurrent requests of one bucket one call judges
	 * ({@code ratelimit.redis.shared-calls.max-batch}); {@code 1}: each its own call
	 * @param refuseLocally whether this node repeats Redis's refusal of a bucket until
	 * its retry-after ({@code ratelimit.redis.local-refusals})
	 * @param policies the policies in force at start-up: those of this store get their
	 * tiers' scripts loaded into Redis before the first request
	 */
	public RedisBucketStore(BucketScript script, Duration timeout, RemoteFailureGuard guard, MonotonicClock clock,
			int maxBatch, boolean refuseLocally, Supplier<? extends Collection<RateLimitPolicy>> policies) {
		this(script, timeout, guard, clock, START_UP_WAIT, maxBatch, refuseLocally, policies);
	}

	RedisBucketStore(BucketScript script, Duration timeout, RemoteFailureGuard guard, MonotonicClock clock,
			Duration startUpWait) {
		this(script, timeout, guard, clock, startUpWait, DEFAULT_MAX_BATCH, true, List::of);
	}

	RedisBucketStore(BucketScript script, Duration timeout, RemoteFailureGuard guard, MonotonicClock clock,
			Duration startUpWait, int maxBatch, boolean refuseLocally,
			Supplier<? extends Collection<RateLimitPolicy>> policies) {
		super(script, timeout, guard, clock, startUpWait);
		this.sharedCalls = new SharedCalls(clock, timeout, maxBatch, refuseLocally);
		this.policies = policies;
	}

	@Override
	public String name() {
		return NAME;
	}

	/**
	 * Opens the connection to Redis and warms the decision path up once the
	 * application's beans exist, before the web server starts.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		connect(true, ofThisStore(this.policies.get()));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The lean scripts of this store's tiers in force are kept and loaded into Redis in
	 * the background, as at start-up, and the others forgotten: a limit the reload added
	 * finds its script in Redis on its first request. Should the load fail, that request
	 * sends its script whole ({@code EVAL}), as after a Redis restart.
	 */
	@Override
	public void policiesReloaded(Collection<RateLimitPolicy> policies) {
		super.policiesReloaded(policies);
		this.script.inForce(ofThisStore(policies)).timeout(START_UP_WAIT).subscribe(null, this::reloadLoadFailed);
	}

	private static List<RateLimitPolicy> ofThisStore(Collection<RateLimitPolicy> policies) {
		return policies.stream().filter((policy) -> policy.store() == StoreType.REDIS).toList();
	}

	private void reloadLoadFailed(Throwable failure) {
		if (logger.isWarnEnabled()) {
			logger.warn("Rate limit store '" + NAME + "' could not load the reloaded policies' scripts into Redis ("
					+ failure + "); a limit's first request sends its script whole");
		}
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A tier without a limit that counts requests in flight is judged on its bucket's
	 * {@link SharedCalls lane}: refused by this node while Redis's last refusal stands, and
	 * otherwise in a call concurrent requests of its bucket may share.
	 */
	@Override
	public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
		RedisLayout layout = this.script.layouts().layout(id.policy(), tier);
		if (!layout.countsInFlight()) {
			return this.sharedCalls.decide(this.acquiring, id, layout, cost, layout.leanAlgorithm() != null);
		}
		if (!this.guard.allowsCall()) {
			return this.guard.fallback(id, tier, cost);
		}
		return judged(id, tier, layout, this.script.acquire(layout, id.key(), cost), Verdict::of)
			.onErrorResume((failure) -> this.guard.onFailure(failure, id, tier, cost));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Blocks are kept in Redis, by its time, for the whole fleet: the decision's script
	 * looks for the client's block and starts one in the same call, so that a breach on
	 * one node blocks the client on all, at no call more. While Redis cannot decide, the
	 * failure mode decides alone: no block is looked for or started.
	 */
	@Override
	public BucketDecider penalized(Penalty penalty) {
		return new RedisPenaltyBox(this, new RedisPenalty(penalty));
	}

	/**
	 * {@link #acquire} under a penalty box.
	 */
	Mono<Verdict> acquire(BucketId id, Tier tier, long cost, RedisPenalty penalty) {
		if (!this.guard.allowsCall()) {
			return this.guard.fallback(id, tier, cost);
		}
		RedisLayout layout = this.script.layouts().layout(id.policy(), tier);
		return judged(id, tier, layout, this.script.acquire(layout, id.key(), cost, penalty), Function.identity())
			.onErrorResume((failure) -> this.guard.onFailure(failure, id, tier, cost));
	}

	/**
	 * {@link #check} under a penalty box.
	 */
	Mono<Verdict> check(BucketId id, Tier tier, long cost, RedisPenalty penalty) {
		if (!this.guard.allowsCall()) {
			return this.guard.checkFallback(id, tier, cost);
		}
		RedisLayout layout = this.script.layouts().layout(id.policy(), tier);
		return judged(id, tier, layout, this.script.check(layout, id.key(), cost, penalty), Function.identity())
			.onErrorResume((failure) -> this.guard.onCheckFailure(failure, id, tier, cost));
	}

	/**
	 * Judged as {@link #acquire} is, on Redis or, when it fails, by the failure mode's
	 * check; only the slots of the limits that count requests in flight are taken.
	 */
	@Override
	public Mono<Verdict> check(BucketId id, Tier tier, long cost) {
		RedisLayout layout = this.script.layouts().layout(id.policy(), tier);
		if (!layout.countsInFlight()) {
			return this.sharedCalls.decide(this.checking, id, layout, cost, false);
		}
		if (!this.guard.allowsCall()) {
			return this.guard.checkFallback(id, tier, cost);
		}
		return judged(id, tier, layout, this.script.check(layout, id.key(), cost), Verdict::of)
			.onErrorResume((failure) -> this.guard.onCheckFailure(failure, id, tier, cost));
	}

	/**
	 * The verdict of a call that may take slots, which this node counts from before the
	 * call (so that a renewal never drops a slot a request still holds) until it is known
	 * to have taken none: refused, failed or cancelled (a slot Redis took all the same is
	 * then one the next renewal drops).
	 */
	private <R> Mono<Verdict> judged(BucketId id, Tier tier, RedisLayout layout, Mono<R> call,
			Function<R, Verdict> toVerdict) {
		Mono<Verdict> verdict = call.timeout(this.timeout).map((reply) -> {
			this.guard.onSuccess();
			return toVerdict.apply(reply);
		});
		if (!layout.countsInFlight()) {
			return verdict;
		}
		return Mono.defer(() -> {
			this.heldSlots.taking(id, tier, layout);
			AtomicBoolean known = new AtomicBoolean();
			Runnable tookNone = () -> {
				if (known.compareAndSet(false, true)) {
					this.heldSlots.released(id, tier);
				}
			};
			return verdict.doOnNext((judged) -> {
				if (judged.allowed()) {
					known.set(true);
				}
				else {
					tookNone.run();
				}
			}).doOnError((failure) -> tookNone.run()).doOnCancel(tookNone);
		});
	}

	/**
	 * Settles on Redis, in one call on every limit: units charged or given back as taken
	 * at Redis time less {@link Settlement#admittedNanosAgo()}, and, the exchange ended,
	 * this node's slot given back. A request a failure mode admitted is settled where it
	 * decided ({@link Settlement#fallback()}). Not a decision, so no failure mode answers
	 * for it: while the breaker is open it is not tried, and a failure or a timeout counts
	 * against the breaker and errors the returned {@code Mono}; it is never retried, so
	 * that nothing is charged twice. A slot Redis did not give back meanwhile expires
	 * with this node's lease, no longer renewed for it.
	 * @return the limits after settling, as a peek describes them; empty when there is no
	 * bucket (none is created, and the limits are as good as new)
	 */
	@Override
	public Mono<Verdict> settle(BucketId id, Tier tier, Settlement settlement) {
		if (settlement.fallback()) {
			return this.guard.settleFallback(id, tier, settlement);
		}
		RedisLayout layout = this.script.layouts().layout(id.policy(), tier);
		boolean releases = settlement.ended() && layout.countsInFlight();
		boolean givesBack = settlement.units() < 0;
		if (!this.guard.allowsCall()) {
			if (releases) {
				this.heldSlots.released(id, tier);
			}
			return Mono.error(new IllegalStateException(
					"Rate limit store '" + NAME + "' does not call Redis while its circuit breaker is open"));
		}
		Mono<Verdict> settled = Mono
			.defer(() -> this.script.settle(layout, id.key(), settlement.units(),
					settlement.admittedNanosAgo() / NANOS_PER_MICRO, settlement.ended()))
			.timeout(this.timeout)
			.doOnSuccess((done) -> {
				this.guard.onSuccess();
				if (givesBack) {
					forgetRefusals(layout, id.key());
				}
			})
			.doOnError(this.guard::recordFailure)
			.map(Verdict::of);
		if (!releases) {
			return settled;
		}
		// Counted off before the verdict goes on, so that the caller sees the count it left.
		return Mono.defer(() -> {
			AtomicBoolean released = new AtomicBoolean();
			Runnable release = () -> {
				if (released.compareAndSet(false, true)) {
					this.heldSlots.released(id, tier);
				}
			};
			return settled.doOnSuccess((verdict) -> release.run())
				.doOnError((failure) -> release.run())
				.doOnCancel(release);
		});
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * This node stops repeating the bucket's refusals once Redis has reset it; other
	 * nodes repeat theirs until their retry-after.
	 */
	@Override
	public Mono<Boolean> reset(RateLimitPolicy policy, String key) {
		return super.reset(policy, key).doOnSuccess((done) -> {
			for (RedisLayout layout : this.script.layouts().layouts(policy)) {
				forgetRefusals(layout, key);
			}
		});
	}

	private void forgetRefusals(RedisLayout layout, String key) {
		this.sharedCalls.forget(this.acquiring, layout, key);
		this.sharedCalls.forget(this.checking, layout, key);
	}

	/**
	 * Decision calls sent to Redis since start: a shared call counts once.
	 */
	public long decisionCalls() {
		return this.sharedCalls.calls();
	}

	/**
	 * Requests Redis judged since start, in {@link #decisionCalls()}.
	 */
	public long judgedOnRedis() {
		return this.sharedCalls.judgedOnRedis();
	}

	/**
	 * Requests this node refused by itself since start, repeating a refusal Redis gave
	 * their bucket until its retry-after.
	 */
	public long refusedLocally() {
		return this.sharedCalls.refusedLocally();
	}

	/**
	 * Renews this node's lease on one bucket's slots, unless the breaker is open; a
	 * failure counts against it.
	 */
	private Mono<Boolean> renew(RedisLayout layout, String clientKey, long held) {
		if (!this.guard.allowsCall()) {
			return Mono.just(false);
		}
		return this.script.renew(layout, clientKey, held)
			.timeout(this.timeout)
			.doOnSuccess((done) -> this.guard.onSuccess())
			.thenReturn(true)
			.onErrorResume((failure) -> {
				this.guard.recordFailure(failure);
				return Mono.just(false);
			});
	}

	/**
	 * The slots this node counts in a bucket, its requests in flight there.
	 */
	long slotsHeld(BucketId id, Tier tier) {
		return this.heldSlots.count(id, tier);
	}

	/**
	 * Lease renewals Redis answered since start, one per bucket each time.
	 */
	long slotRenewals() {
		return this.heldSlots.renewals();
	}

	/**
	 * The breaker's view, with the latency of the previous health check's PING
	 * ({@link #pingInBackground()}).
	 */
	@Override
	public StoreHealth health() {
		pingInBackground();
		Map<String, Object> details = this.guard.healthDetails();
		long ping = this.pingMicros.get();
		details.put("pingMicros", (ping >= 0) ? ping : (ping == NO_PING_YET) ? "pending" : "failed");
		details.put("decisionCalls", decisionCalls());
		details.put("judgedOnRedis", judgedOnRedis());
		details.put("refusedLocally", refusedLocally());
		return new StoreHealth(this.guard.up(), this.guard.serving(), details);
	}

	/**
	 * Starts the background probe that closes the breaker once Redis answers again, and
	 * the renewal of this node's slot leases.
	 */
	@Override
	public void start() {
		startProbing();
		this.heldSlots.start(this.script.slots().lease(), this::renew);
	}

	/**
	 * Stops both: the slots this node still holds expire with their leases.
	 */
	@Override
	public void stop() {
		this.guard.stopProbing();
		this.heldSlots.stop();
	}

	@Override
	public boolean isRunning() {
		return this.guard.probing();
	}

	/**
	 * The hybrid store's phase: the probe starts after the Redis connection factory
	 * (phase 0) and stops before it.
	 */
	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * A decision mode on Redis for {@link SharedCalls}: an acquire (several requests in
	 * one call of the lean script, one in the generic script's) or a check (one request a
	 * call), each with its failure mode.
	 */
	private final class Judging implements SharedCalls.Judge {

		private final boolean checks;

		Judging(boolean checks) {
			this.checks = checks;
		}

		@Override
		public boolean allowsCall() {
			return RedisBucketStore.this.guard.allowsCall();
		}

		@Override
		public Mono<Verdict[]> call(BucketId id, RedisLayout layout, long[] costs, long refusedHere) {
			BucketScript script = RedisBucketStore.this.script;
			if (this.checks) {
				return script.check(layout, id.key(), costs[0], 1 + refusedHere)
					.map((decisions) -> new Verdict[] { Verdict.of(decisions) });
			}
			if (layout.leanAlgorithm() != null) {
				return script.acquireEach(layout, id.key(), costs, refusedHere).map((decisions) -> decisions);
			}
			return script.acquire(layout, id.key(), costs[0], 1 + refusedHere)
				.map((decisions) -> new Verdict[] { Verdict.of(decisions) });
		}

		@Override
		public void answered() {
			RedisBucketStore.this.guard.onSuccess();
		}

		@Override
		public Mono<Verdict> failed(Throwable failure, BucketId id, Tier tier, long cost) {
			RemoteFailureGuard guard = RedisBucketStore.this.guard;
			return this.checks ? guard.onCheckFailure(failure, id, tier, cost) : guard.onFailure(failure, id, tier, cost);
		}

		@Override
		public Mono<Verdict> fallback(BucketId id, Tier tier, long cost) {
			RemoteFailureGuard guard = RedisBucketStore.this.guard;
			return this.checks ? guard.checkFallback(id, tier, cost) : guard.fallback(id, tier, cost);
		}

	}

}
