package dev.ratelimit.store.hybrid;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.StoreHealth;
import dev.ratelimit.store.redis.BucketScript;
import dev.ratelimit.store.redis.RedisLayout;
import dev.ratelimit.store.redis.RemoteBucketStore;
import dev.ratelimit.store.redis.RemoteFailureGuard;
import dev.ratelimit.support.MonotonicClock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
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
 * node renews each lease: it leases twice the units the bucket used in the last
 * interval and gives back what was left of the lease before, while requests go on
 * spending the current one (see {@link Lease}). A node calls Redis on a request only
 * when its lease is short while Redis last said the bucket had room (a new or
 * returning client, a burst), and concurrent requests of one bucket share that call.
 * <p>
 * The price of local speed: leased units may stay unused on one node while another
 * rejects (at most two sync intervals), and a unit is counted by Redis when it is
 * leased, normally up to one sync interval and one timeout before it is admitted, so
 * windows and refills are shifted by about that (see the reference documentation for
 * the bound).
 */
public final class HybridBucketStore extends RemoteBucketStore implements SmartLifecycle {

	/**
	 * The store's name, as in {@code ratelimit.store}.
	 */
	public static final String NAME = StoreType.HYBRID.storeName();

	private static final Log logger = LogFactory.getLog(HybridBucketStore.class);

	private final Duration syncInterval;

	private final Map<BucketId, Lease> leases = new ConcurrentHashMap<>();

	private final AtomicLong requests = new AtomicLong();

	private final AtomicLong syncBatches = new AtomicLong();

	private final AtomicLong leaseFetches = new AtomicLong();

	private volatile Scheduler scheduler;

	private volatile @Nullable Disposable syncing;

	/**
	 * @param script the bucket script, bound to the key prefix
	 * @param timeout longest a call to Redis may take
	 * @param syncInterval how often leases are reconciled with Redis
	 * @param guard what to decide when Redis fails
	 * @param clock the clock of lease ages
	 */
	public HybridBucketStore(BucketScript script, Duration timeout, Duration syncInterval, RemoteFailureGuard guard,
			MonotonicClock clock) {
		this(script, timeout, syncInterval, guard, clock, START_UP_WAIT);
	}

	/**
	 * As above, with a bound of its own on how long {@link #start()} waits for Redis.
	 * @param startUpWait longest the start-up's connection and warm-up are waited for
	 */
	public HybridBucketStore(BucketScript script, Duration timeout, Duration syncInterval, RemoteFailureGuard guard,
			MonotonicClock clock, Duration startUpWait) {
		super(script, timeout, guard, clock, startUpWait);
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
			Lease lease = this.leases.computeIfAbsent(id, (key) -> newLease(id, tier));
			if (lease.tier() != tier) {
				retireReloaded(lease);
				continue;
			}
			LeaseStep step = lease.request(cost, true);
			if (!(step instanceof LeaseStep.Retired)) {
				return follow(step, lease, id, tier, cost, true);
			}
		}
	}

	/**
	 * Retire a lease taken under a tier the policies no longer have (or, for a request
	 * in flight across a reload, under the tier they have now), giving its unused units
	 * back, so that the next lease is taken under the request's own tier.
	 */
	private void retireReloaded(Lease lease) {
		this.leases.remove(lease.id(), lease);
		Optional<Mono<Void>> giveBack = lease.giveBack();
		if (giveBack.isPresent() && this.guard.allowsCall()) {
			batch(List.of(giveBack.get())).subscribe();
		}
	}

	/**
	 * The verdict when this node's lease decides it without waiting: admitted from the
	 * units it holds, or rejected while Redis last said the bucket is empty.
	 */
	@Override
	public @Nullable Verdict acquireNow(BucketId id, Tier tier, long cost) {
		while (true) {
			Lease lease = this.leases.computeIfAbsent(id, (key) -> newLease(id, tier));
			if (lease.tier() != tier) {
				retireReloaded(lease);
				continue;
			}
			LeaseStep step = lease.request(cost, false);
			if (step instanceof LeaseStep.Decided decided) {
				this.requests.incrementAndGet();
				return decided.verdict();
			}
			if (!(step instanceof LeaseStep.Retired)) {
				// The port's answer for "ask acquire", which counts the request.
				return null;
			}
		}
	}

	private Lease newLease(BucketId id, Tier tier) {
		RedisLayout layout = this.script.layouts().layout(id.policy(), tier);
		return new Lease(id, layout, this.script, this.guard, this.clock, this.timeout,
				this.syncInterval, this.leaseFetches::incrementAndGet);
	}

	/**
	 * Where a lease step leads: a verdict, the failure mode, or the reply of the lease's
	 * call and then the lease again; when this node's other requests took the whole new
	 * lease while Redis still has room, Redis is asked once more.
	 */
	private Mono<Verdict> follow(LeaseStep step, Lease lease, BucketId id, Tier tier, long cost, boolean mayAskAgain) {
		if (step instanceof LeaseStep.Decided decided) {
			return Mono.just(decided.verdict());
		}
		if (step instanceof LeaseStep.AwaitReply await) {
			return await.reply()
				.then(Mono.defer(() -> follow(lease.afterReply(cost, mayAskAgain), lease, id, tier, cost, false)))
				.onErrorResume((failure) -> this.guard.fallback(id, tier, cost));
		}
		return this.guard.fallback(id, tier, cost);
	}

	/**
	 * One sync: every lease with something to give back, report or renew, in one
	 * pipelined batch; idle leases are forgotten. The store runs it every sync interval;
	 * calling it sooner reconciles at once.
	 */
	public Mono<Void> syncOnce() {
		if (this.leases.isEmpty() || !this.guard.allowsCall()) {
			return Mono.empty();
		}
		List<Mono<Void>> calls = new ArrayList<>();
		for (Lease lease : this.leases.values()) {
			lease.sync().ifPresentOrElse(calls::add, () -> {
				if (lease.retired()) {
					this.leases.remove(lease.id(), lease);
				}
			});
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
				lease.retire();
				this.leases.remove(lease.id(), lease);
			}
		}
		return super.reset(policy, key);
	}

	@Override
	public StoreHealth health() {
		pingInBackground();
		Map<String, Object> details = this.guard.healthDetails();
		details.put("syncInterval", this.syncInterval.toString());
		details.put("leases", this.leases.size());
		details.put("requests", this.requests.get());
		details.put("remoteCalls", remoteCalls());
		return new StoreHealth(this.guard.up(), this.guard.serving(), details);
	}

	/**
	 * Round trips to Redis since start: one per sync batch, one per lease fetched by a
	 * request (because the lease was short, or to renew it ahead of demand).
	 */
	public long remoteCalls() {
		return this.syncBatches.get() + this.leaseFetches.get();
	}

	@Override
	public void start() {
		if (this.syncing != null) {
			return;
		}
		// Leases are the generic script's: no policy's tier takes a lean script.
		connect(false, List.of());
		this.scheduler = Schedulers.newSingle("ratelimit-hybrid-sync", true);
		this.syncing = Flux.interval(this.syncInterval, this.syncInterval, this.scheduler)
			.onBackpressureDrop()
			.concatMap((tick) -> syncOnce(), 1)
			.subscribe();
		startProbing();
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
		this.guard.stopProbing();
		this.syncing = null;
		giveBack();
	}

	/**
	 * Gives every lease's unused units back, waiting two timeouts at most: a stop must
	 * end, so units whose call fails, is too slow or is not tried (the breaker open) stay
	 * counted in Redis as spent until their window ends or they refill, and a warning
	 * says how many buckets that leaves.
	 */
	private void giveBack() {
		List<Mono<Void>> calls = new ArrayList<>();
		for (Lease lease : this.leases.values()) {
			lease.giveBack().ifPresent(calls::add);
		}
		this.leases.clear();
		if (calls.isEmpty()) {
			return;
		}
		AtomicInteger givenBack = new AtomicInteger();
		boolean called = this.guard.allowsCall();
		if (called) {
			try {
				Flux.fromIterable(calls)
					.flatMap((call) -> call.doOnSuccess((done) -> givenBack.incrementAndGet())
						.onErrorResume((failure) -> Mono.empty()))
					.then()
					.block(this.timeout.multipliedBy(2));
			}
			catch (IllegalStateException ex) {
				// Not all answered within the wait: those that did are counted.
			}
		}
		int left = calls.size() - givenBack.get();
		if (left > 0 && logger.isWarnEnabled()) {
			logger.warn("Rate limit store '" + name() + "' stopped without giving back the units it leased on " + left
					+ " of " + calls.size() + " buckets (Redis " + (called
							? "did not answer within twice ratelimit.redis.timeout" : "unreachable, its circuit breaker open")
					+ "): Redis counts them as spent until their window ends or they refill");
		}
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

}
