package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.MonotonicClock;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.StoreHealth;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.context.SmartLifecycle;

/**
 * Eventually consistent limits across a fleet, decided at local speed. Each node
 * leases slices of every bucket's quota from Redis: the lease is consumed from the
 * Redis bucket by the same atomic script as the {@code redis} store, so the fleet
 * never admits more than the bucket holds, and the node then admits requests from its
 * lease without calling Redis. Every {@code sync-interval}, one pipelined batch per
 * node gives back each lease's unused units and leases twice the units the bucket
 * used in the last interval; a node calls Redis on a request only when it has no lease
 * for the bucket while Redis last said the bucket had room (a new or returning
 * client), and concurrent requests of one bucket share that call.
 * <p>
 * The price of local speed: leased units may stay unused on one node while another
 * rejects (at most until the next sync), and a unit is counted by Redis when it is
 * leased, up to one sync interval before it is admitted, so windows and refills are
 * shifted by at most one interval (see the reference documentation for the bound).
 */
public final class HybridBucketStore extends RemoteBucketStore implements SmartLifecycle {

	/**
	 * The store's name, as in {@code ratelimit.store}.
	 */
	public static final String NAME = "hybrid";

	/**
	 * This store's lifecycle phase: see {@link #getPhase()}.
	 */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	/**
	 * Marks units that stay valid until the next sync.
	 */
	private static final long NEVER = Long.MIN_VALUE;

	private final Duration syncInterval;

	private final Map<BucketId, Lease> leases = new ConcurrentHashMap<>();

	private final AtomicLong requests = new AtomicLong();

	private final AtomicLong syncBatches = new AtomicLong();

	private final AtomicLong leaseFetches = new AtomicLong();

	private volatile Scheduler scheduler;

	private volatile Disposable syncing;

	/**
	 * @param script the bucket script, bound to the key prefix
	 * @param timeout longest a call to Redis may take
	 * @param syncInterval how often leases are reconciled with Redis
	 * @param guard what to decide when Redis fails
	 * @param clock the clock of lease ages
	 */
	public HybridBucketStore(BucketScript script, Duration timeout, Duration syncInterval, RemoteFailureGuard guard,
			MonotonicClock clock) {
		super(script, timeout, guard, clock);
		this.syncInterval = syncInterval;
	}

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
		this.requests.incrementAndGet();
		while (true) {
			Lease lease = this.leases.computeIfAbsent(id, (key) -> new Lease(id, this.script.layout(id.policy(), tier)));
			Verdict local;
			synchronized (lease) {
				if (lease.retired) {
					continue;
				}
				if (lease.layout.tier() != tier) {
					retireReloaded(lease);
					continue;
				}
				lease.demand += cost;
				lease.requests++;
				lease.cost = cost;
				local = lease.decideLocally(cost, this.clock.nanoTime());
			}
			if (local != null) {
				return Mono.just(local);
			}
			return fetchThenDecide(lease, id, tier, cost, true);
		}
	}

	/**
	 * Retire a lease taken under a tier the policies no longer have (or, for a request
	 * in flight across a reload, under the tier they have now), giving its unused units
	 * back, so that the next lease is taken under the request's own tier. Called holding
	 * the lease's monitor.
	 */
	private void retireReloaded(Lease lease) {
		lease.retired = true;
		this.leases.remove(lease.id(), lease);
		if (lease.pending == null && lease.units > 0 && this.guard.allowsCall()) {
			batch(List.of(lease.startCall(0, lease.cost))).subscribe();
		}
	}

	/**
	 * Wait for the lease's call to Redis, then decide; when this node's other requests
	 * took the whole new lease while Redis still has room, ask once more.
	 */
	private Mono<Verdict> fetchThenDecide(Lease lease, BucketId id, Tier tier, long cost, boolean mayRetry) {
		Mono<Void> pending = pendingOrFetch(lease, cost);
		if (pending == null) {
			return this.guard.fallback(id, tier, cost);
		}
		return pending.then(Mono.defer(() -> {
			Verdict verdict;
			synchronized (lease) {
				verdict = lease.decideAfterReply(cost, this.clock.nanoTime(), this.syncInterval.toNanos(), mayRetry);
			}
			return (verdict != null) ? Mono.just(verdict) : fetchThenDecide(lease, id, tier, cost, false);
		})).onErrorResume((failure) -> this.guard.fallback(id, tier, cost));
	}

	/**
	 * The lease's call in flight, or a new one; {@code null} when the circuit breaker
	 * forbids calling Redis.
	 */
	private Mono<Void> pendingOrFetch(Lease lease, long cost) {
		Mono<Void> call;
		synchronized (lease) {
			if (lease.pending != null) {
				return lease.pending;
			}
			if (!this.guard.allowsCall()) {
				return null;
			}
			long want = Math.max(cost, 2 * Math.max(lease.demand, lease.lastDemand));
			call = lease.startCall(want, cost);
		}
		this.leaseFetches.incrementAndGet();
		call.subscribe((unused) -> {
		}, (failure) -> {
		});
		return call;
	}

	/**
	 * One sync: every lease with something to give back, report or renew, in one
	 * pipelined batch; idle leases are forgotten.
	 */
	private Mono<Void> syncOnce() {
		if (this.leases.isEmpty() || !this.guard.allowsCall()) {
			return Mono.empty();
		}
		List<Mono<Void>> calls = new ArrayList<>();
		for (Lease lease : this.leases.values()) {
			synchronized (lease) {
				if (lease.pending != null) {
					continue;
				}
				if (lease.units == 0 && lease.requests == 0 && lease.demand == 0) {
					if (lease.idleSince(this.clock.nanoTime())) {
						lease.retired = true;
						this.leases.remove(lease.id(), lease);
					}
					continue;
				}
				long want = 2 * lease.demand;
				lease.lastDemand = lease.demand;
				lease.demand = 0;
				calls.add(lease.startCall(want, lease.cost));
			}
		}
		if (calls.isEmpty()) {
			return Mono.empty();
		}
		this.syncBatches.incrementAndGet();
		return batch(calls);
	}

	/**
	 * Started back to back without waiting for replies, the calls share one connection
	 * and travel as one pipelined batch; a failed call fails only its own lease.
	 */
	private static Mono<Void> batch(List<Mono<Void>> calls) {
		return Flux.fromIterable(calls).flatMap((call) -> call.onErrorResume((failure) -> Mono.empty())).then();
	}

	@Override
	public Mono<Boolean> reset(RateLimitPolicy policy, String key) {
		for (Lease lease : this.leases.values()) {
			if (lease.id().policy().equals(policy.id()) && lease.id().key().equals(key)) {
				synchronized (lease) {
					lease.retired = true;
				}
				this.leases.remove(lease.id(), lease);
			}
		}
		return super.reset(policy, key);
	}

	@Override
	public StoreHealth health() {
		Map<String, Object> details = this.guard.healthDetails();
		details.put("syncInterval", this.syncInterval.toString());
		details.put("leases", this.leases.size());
		details.put("requests", this.requests.get());
		details.put("remoteCalls", remoteCalls());
		return new StoreHealth(this.guard.up(), details);
	}

	/**
	 * Round trips to Redis since start: one per sync batch, one per lease fetched on a
	 * request.
	 */
	public long remoteCalls() {
		return this.syncBatches.get() + this.leaseFetches.get();
	}

	@Override
	public void start() {
		if (this.syncing != null) {
			return;
		}
		connect();
		this.scheduler = Schedulers.newSingle("ratelimit-hybrid-sync", true);
		this.syncing = Flux.interval(this.syncInterval, this.syncInterval, this.scheduler)
			.onBackpressureDrop()
			.concatMap((tick) -> syncOnce(), 1)
			.subscribe();
	}

	/**
	 * Stops syncing and gives every unused leased unit back, so that a node leaving
	 * the fleet strands no quota.
	 */
	@Override
	public void stop() {
		Disposable running = this.syncing;
		if (running == null) {
			return;
		}
		running.dispose();
		this.scheduler.dispose();
		this.syncing = null;
		giveBack().block(this.timeout.multipliedBy(2));
	}

	private Mono<Void> giveBack() {
		if (!this.guard.allowsCall()) {
			return Mono.empty();
		}
		List<Mono<Void>> calls = new ArrayList<>();
		for (Lease lease : this.leases.values()) {
			synchronized (lease) {
				lease.retired = true;
				if (lease.pending == null && lease.units > 0) {
					calls.add(lease.startCall(0, lease.cost));
				}
			}
		}
		this.leases.clear();
		return batch(calls);
	}

	@Override
	public boolean isRunning() {
		return this.syncing != null;
	}

	/**
	 * Started before the web server and stopped after it, once a graceful shutdown has
	 * drained the requests in flight, so that the units they leased and the requests they
	 * counted are given back too; and after the Redis connection factory (phase 0) has
	 * started and before it stops. Spring Boot stops the web server in phase
	 * {@code DEFAULT_PHASE - 2048}, after draining it in {@code DEFAULT_PHASE - 1024}.
	 */
	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * One node's lease on one bucket. Guarded by its own monitor: buckets never wait
	 * on each other.
	 */
	private final class Lease {

		private final BucketId id;

		private final TierLayout layout;

		/** Units leased and not yet admitted. */
		private long units;

		/** Redis time of the lease the units come from, to give them back against. */
		private long leasedAtMicros;

		/** Units asked for since the last sync, admitted or not. */
		private long demand;

		/** Units asked for in the interval before. */
		private long lastDemand;

		/** Requests judged since the last report to Redis. */
		private long requests;

		/** Units the last request cost: what Redis judges a next request by. */
		private long cost = 1;

		/** Each limit's decision on one more request after the last lease: what is left for the fleet. */
		private Decision[] global;

		private long globalAtNanos;

		/**
		 * When the units stop being valid: the end of the fixed window they were counted
		 * in, so that none spills into the next window.
		 */
		private long unitsExpireAtNanos = NEVER;

		private long idleSinceNanos = -1;

		private Mono<Void> pending;

		private boolean retired;

		Lease(BucketId id, TierLayout layout) {
			this.id = id;
			this.layout = layout;
		}

		BucketId id() {
			return this.id;
		}

		/**
		 * The verdict from the lease, or {@code null} when Redis must be asked: the lease
		 * is short but Redis last said the bucket had room (or never said anything).
		 */
		Verdict decideLocally(long cost, long nowNanos) {
			this.idleSinceNanos = -1;
			if (this.unitsExpireAtNanos != NEVER && nowNanos - this.unitsExpireAtNanos >= 0) {
				// A new window: what Redis said of the last one no longer holds.
				this.units = 0;
				this.global = null;
				this.unitsExpireAtNanos = NEVER;
			}
			if (this.units >= cost) {
				return admit(cost);
			}
			if (this.pending != null || this.global == null) {
				return null;
			}
			// Once Redis said the bucket is empty, asking again before the next sync would
			// cost a round trip per request while it refills: the sync renews the lease.
			boolean roomLeft = true;
			for (Decision decision : this.global) {
				roomLeft &= decision.allowed();
			}
			return roomLeft ? null : reject(nowNanos - this.globalAtNanos);
		}

		/**
		 * The verdict once Redis answered: admitted from the new lease, or rejected
		 * until the bucket has room again; {@code null} to ask Redis again when this
		 * node's other requests took the whole new lease while the bucket still has
		 * room, else rejected until the next sync.
		 */
		Verdict decideAfterReply(long cost, long nowNanos, long syncIntervalNanos, boolean mayRetry) {
			if (this.units >= cost) {
				return admit(cost);
			}
			if (this.global != null) {
				Verdict verdict = reject(nowNanos - this.globalAtNanos);
				if (!verdict.allowed()) {
					return verdict;
				}
			}
			if (mayRetry) {
				return null;
			}
			return shareSpent(nowNanos - this.globalAtNanos, syncIntervalNanos);
		}

		/**
		 * The bucket has room, but this node's share of it is gone until its next sync:
		 * the limit closest to exhaustion rejects until then.
		 */
		private Verdict shareSpent(long elapsed, long syncIntervalNanos) {
			List<Limit> limits = this.layout.tier().limits();
			Decision[] decisions = new Decision[limits.size()];
			int tightest = 0;
			for (int i = 0; i < decisions.length; i++) {
				long quota = limits.get(i).quota();
				decisions[i] = (this.global != null) ? aged(this.global[i], elapsed)
						: new Decision(true, quota, quota, 0, 0);
				if (decisions[i].remaining() < decisions[tightest].remaining()) {
					tightest = i;
				}
			}
			decisions[tightest] = Decision.rejected(0, decisions[tightest].limit(), syncIntervalNanos);
			return Verdict.of(decisions);
		}

		private Verdict admit(long cost) {
			this.units -= cost;
			Decision[] decisions = new Decision[this.global.length];
			for (int i = 0; i < decisions.length; i++) {
				Decision global = this.global[i];
				decisions[i] = new Decision(true, Math.min(global.limit(), global.remaining() + this.units),
						global.limit(), global.resetNanos(), 0);
			}
			return Verdict.of(decisions);
		}

		private Verdict reject(long elapsed) {
			Decision[] decisions = new Decision[this.global.length];
			for (int i = 0; i < decisions.length; i++) {
				decisions[i] = aged(this.global[i], elapsed);
			}
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
			return Decision.rejected(global.remaining(), global.limit(),
					Math.max(1, global.retryAfterNanos() - elapsed));
		}

		boolean idleSince(long nowNanos) {
			if (this.idleSinceNanos < 0) {
				this.idleSinceNanos = nowNanos;
				return false;
			}
			return nowNanos - this.idleSinceNanos >= HybridBucketStore.this.syncInterval.toNanos();
		}

		/**
		 * Give back every unused unit and lease up to {@code want}; until Redis answers,
		 * requests of this bucket wait for the reply.
		 */
		Mono<Void> startCall(long want, long cost) {
			long refund = this.units;
			long requests = this.requests;
			this.units = 0;
			this.requests = 0;
			long sentAtNanos = HybridBucketStore.this.clock.nanoTime();
			Mono<Void> call = HybridBucketStore.this.script
				.lease(this.layout, this.id.key(), cost, want, refund, this.leasedAtMicros, requests)
				.timeout(HybridBucketStore.this.timeout)
				.doOnNext((reply) -> apply(reply, sentAtNanos))
				.doOnError(this::failed)
				.doOnCancel(this::forgetCall)
				.then()
				.cache();
			this.pending = call;
			return call;
		}

		private void apply(BucketScript.LeaseReply reply, long sentAtNanos) {
			HybridBucketStore.this.guard.onSuccess();
			synchronized (this) {
				this.units += reply.granted();
				this.leasedAtMicros = reply.atMicros();
				this.global = reply.decisions();
				this.globalAtNanos = HybridBucketStore.this.clock.nanoTime();
				// Redis measured the window's end from a moment between sending and this
				// reply: counted from the sending, the leased units expire at the latest
				// when their window does, however slow the reply, and are never spent in the
				// next window, where Redis grants the whole limit again.
				this.unitsExpireAtNanos = windowEnd(sentAtNanos, reply.decisions());
				this.pending = null;
			}
		}

		private long windowEnd(long nowNanos, Decision[] decisions) {
			long end = NEVER;
			List<Limit> limits = this.layout.tier().limits();
			for (int i = 0; i < decisions.length; i++) {
				// A fixed window's reset is the end of its window while it counts anything.
				if (limits.get(i) instanceof FixedWindow && decisions[i].resetNanos() > 0) {
					long windowEnd = nowNanos + decisions[i].resetNanos();
					end = (end == NEVER || windowEnd - end < 0) ? windowEnd : end;
				}
			}
			return end;
		}

		private void failed(Throwable failure) {
			HybridBucketStore.this.guard.recordFailure(failure);
			forgetCall();
		}

		private synchronized void forgetCall() {
			this.pending = null;
		}

	}

}
