package dev.ratelimit.store.hybrid;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.redis.BucketScript;
import dev.ratelimit.store.redis.RedisLayout;
import dev.ratelimit.store.redis.Refund;
import dev.ratelimit.store.redis.RemoteFailureGuard;
import dev.ratelimit.support.MonotonicClock;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * One node's lease on one bucket for the {@link HybridBucketStore}: the units it holds,
 * what Redis last said of the bucket, and the one call to Redis it may have in flight.
 * Guarded by its own monitor: buckets never wait on each other.
 * <p>
 * Units come in lots, one per reply. The lot being spent stays spendable while the
 * call renewing it travels: a request is decided locally whenever the lot holds its
 * cost, and waits for the reply only when it does not. When the reply arrives, what is
 * left of the old lot stops being spent and goes back to Redis with the next call (a
 * call gives back lots, never units it may still spend), so that every admitted unit
 * was counted in Redis once, when it was leased, and is admitted at most one sync
 * interval plus one timeout later (two timeouts when a sync found a request's call in
 * flight): the bound of docs/redis.md. A lot spent down to a quarter while Redis says
 * the bucket has room is renewed at once, ahead of the sync, so that growing demand
 * does not find the lease empty.
 * <p>
 * The lease's state and every transition of it live here, behind one monitor, so that
 * the rules above can be checked in one reading; the verdicts it builds are
 * {@link LeaseVerdicts}'.
 */
final class Lease {

	/**
	 * Marks units that stay valid until the next reply.
	 */
	private static final long NEVER = Long.MIN_VALUE;

	private final BucketId id;

	private final RedisLayout layout;

	private final BucketScript script;

	private final RemoteFailureGuard guard;

	private final MonotonicClock clock;

	private final Duration timeout;

	private final long syncIntervalNanos;

	/** Told of every call a request starts (not the syncs'), for the store's count. */
	private final Runnable onFetch;

	/** Units of the spendable lot not yet admitted. */
	private long units;

	/** Units the spendable lot came with. */
	private long lotSize;

	/** Redis time of the spendable lot's lease, to give its units back against. */
	private long unitsLeasedAtMicros;

	/**
	 * When the spendable lot stops being valid: the end of the fixed window its units
	 * were counted in, measured from when they were asked for, so that none spills into
	 * the next window.
	 */
	private long unitsExpireAtNanos = NEVER;

	/** The lot no longer spent, given back by the next call. */
	private Refund returning = Refund.NONE;

	/**
	 * When the returning lot stops counting in Redis: the end of the fixed window it was
	 * leased in, or {@link #NEVER} while it counts until given back.
	 */
	private long returningExpireAtNanos = NEVER;

	/**
	 * Unspent units the call in flight gives back: Redis counts them as consumed until it
	 * has, which its reply then says.
	 */
	private long givingBack;

	/** When {@link #givingBack} stops counting in Redis, as {@link #returningExpireAtNanos}. */
	private long givingBackExpireAtNanos = NEVER;

	/** Units asked for since the last sync, admitted or not. */
	private long demand;

	/** Units asked for in the interval before. */
	private long lastDemand;

	/** Requests judged since the last report to Redis. */
	private long requests;

	/** Units the last request cost: what Redis judges a next request by. */
	private long cost = 1;

	/** Each limit's decision on one more request after the last lease: what is left for the fleet. */
	private Decision @Nullable [] global;

	/** The cost of the one more request {@link #global} decided on. */
	private long globalCost;

	private long globalAtNanos;

	private long idleSinceNanos = -1;

	private @Nullable Mono<Void> pending;

	private boolean retired;

	Lease(BucketId id, RedisLayout layout, BucketScript script, RemoteFailureGuard guard, MonotonicClock clock,
			Duration timeout, Duration syncInterval, Runnable onFetch) {
		this.id = id;
		this.layout = layout;
		this.script = script;
		this.guard = guard;
		this.clock = clock;
		this.timeout = timeout;
		this.syncIntervalNanos = syncInterval.toNanos();
		this.onFetch = onFetch;
	}

	BucketId id() {
		return this.id;
	}

	/**
	 * The tier the lease was taken under: a reload that changes it retires the lease.
	 */
	Tier tier() {
		return this.layout.tier();
	}

	/**
	 * A request of {@code cost}: admitted from the spendable lot (even while a renewal
	 * is in flight), rejected while Redis last said the bucket is empty, else Redis is
	 * asked (or the call in flight awaited) if {@code mayWait}; if not, the lease
	 * answers {@link LeaseStep.NotNow} and counts nothing.
	 */
	synchronized LeaseStep request(long cost, boolean mayWait) {
		if (this.retired) {
			return new LeaseStep.Retired();
		}
		long now = this.clock.nanoTime();
		if (this.unitsExpireAtNanos != NEVER && now - this.unitsExpireAtNanos >= 0) {
			// A new window: what Redis said of the last one no longer holds, and the units
			// counted in it stay there.
			this.units = 0;
			this.global = null;
			this.unitsExpireAtNanos = NEVER;
		}
		boolean emptyBucket = this.units < cost && this.pending == null && this.global != null && !roomLeft();
		if (this.units < cost && !emptyBucket && !mayWait) {
			return new LeaseStep.NotNow();
		}
		this.demand += cost;
		this.requests++;
		this.cost = cost;
		this.idleSinceNanos = -1;
		if (this.units >= cost) {
			Verdict admitted = admit(cost, now);
			if (this.pending == null && this.units * 4 < this.lotSize && roomLeft() && this.guard.allowsCall()) {
				fetchInBackground(cost);
			}
			return new LeaseStep.Decided(admitted);
		}
		if (emptyBucket) {
			// Once Redis said the bucket is empty, asking again before the next sync would
			// cost a round trip per request while it refills: the sync renews the lease.
			return new LeaseStep.Decided(LeaseVerdicts.asRedisSaid(this.global, now - this.globalAtNanos));
		}
		return fetch(cost);
	}

	/**
	 * The request once Redis answered: admitted from the new lot, or rejected until the
	 * bucket has room again. When this node's other requests took the whole new lot
	 * while the bucket still has room, Redis is asked once more if {@code mayAskAgain},
	 * else the request is rejected until the next sync.
	 */
	synchronized LeaseStep afterReply(long cost, boolean mayAskAgain) {
		long now = this.clock.nanoTime();
		if (this.units >= cost) {
			return new LeaseStep.Decided(admit(cost, now));
		}
		if (this.global != null && !roomLeft()) {
			return new LeaseStep.Decided(LeaseVerdicts.asRedisSaid(this.global, now - this.globalAtNanos));
		}
		if (mayAskAgain) {
			return fetch(cost);
		}
		return new LeaseStep.Decided(
				LeaseVerdicts.shareSpent(this.layout.tier(), this.global, now - this.globalAtNanos, this.syncIntervalNanos));
	}

	/**
	 * The sync's call for this lease; none while a call is in flight or when it has
	 * nothing to give back, report or renew: then it is retired once idle for a whole
	 * interval.
	 */
	synchronized Optional<Mono<Void>> sync() {
		if (this.pending != null) {
			return Optional.empty();
		}
		if (this.units == 0 && this.returning.units() == 0 && this.requests == 0 && this.demand == 0) {
			long now = this.clock.nanoTime();
			if (this.idleSinceNanos < 0) {
				this.idleSinceNanos = now;
			}
			else if (now - this.idleSinceNanos >= this.syncIntervalNanos) {
				this.retired = true;
			}
			return Optional.empty();
		}
		long want = 2 * this.demand;
		// A lot nobody asked from in the last interval goes back now rather than after
		// the reply.
		boolean keepSpending = this.demand > 0;
		this.lastDemand = this.demand;
		this.demand = 0;
		return Optional.of(startCall(want, this.cost, keepSpending));
	}

	/**
	 * The call giving every unit back as the node stops; none when there is nothing to
	 * give back or a call is in flight. The lease is retired either way.
	 */
	synchronized Optional<Mono<Void>> giveBack() {
		this.retired = true;
		if (this.pending != null || (this.units == 0 && this.returning.units() == 0)) {
			return Optional.empty();
		}
		return Optional.of(startCall(0, this.cost, false));
	}

	synchronized void retire() {
		this.retired = true;
	}

	synchronized boolean retired() {
		return this.retired;
	}

	private Verdict admit(long cost, long now) {
		this.units -= cost;
		return LeaseVerdicts.admitted(this.global, this.globalCost, this.units + unspentGivenBack(now));
	}

	/**
	 * The units this node leased, does not spend and gives back (the returning lot and
	 * the lots the call in flight gives back), as far as Redis still counts them: none
	 * once the window they were leased in has ended.
	 */
	private long unspentGivenBack(long now) {
		return (counts(this.returningExpireAtNanos, now) ? this.returning.units() : 0)
				+ (counts(this.givingBackExpireAtNanos, now) ? this.givingBack : 0);
	}

	private static boolean counts(long expireAtNanos, long now) {
		return expireAtNanos == NEVER || now - expireAtNanos < 0;
	}

	private LeaseStep fetch(long cost) {
		if (this.pending != null) {
			return new LeaseStep.AwaitReply(this.pending);
		}
		if (!this.guard.allowsCall()) {
			return new LeaseStep.RedisUnavailable();
		}
		return new LeaseStep.AwaitReply(fetchInBackground(cost));
	}

	/**
	 * A call for twice the demand, subscribed here, so that it completes and its units
	 * reach the lease whatever becomes of the request that started it.
	 */
	private Mono<Void> fetchInBackground(long cost) {
		Mono<Void> call = startCall(Math.max(cost, 2 * Math.max(this.demand, this.lastDemand)), cost, true);
		this.onFetch.run();
		call.subscribe((unused) -> {
		}, (failure) -> {
		});
		return call;
	}

	private boolean roomLeft() {
		for (Decision decision : this.global) {
			if (!decision.allowed()) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Give back the returning lot (and the spendable one unless {@code keepSpending}),
	 * lease up to {@code want} units, and report the requests judged here.
	 */
	private Mono<Void> startCall(long want, long cost, boolean keepSpending) {
		Refund spare = Refund.NONE;
		if (!keepSpending) {
			spare = new Refund(this.units, this.unitsLeasedAtMicros);
			this.units = 0;
		}
		Refund back = this.returning;
		this.returning = Refund.NONE;
		long sentAtNanos = this.clock.nanoTime();
		boolean backCounts = counts(this.returningExpireAtNanos, sentAtNanos);
		this.givingBack = (backCounts ? back.units() : 0) + spare.units();
		this.givingBackExpireAtNanos = (backCounts && back.units() > 0) ? this.returningExpireAtNanos
				: this.unitsExpireAtNanos;
		long requests = this.requests;
		this.requests = 0;
		Mono<Void> call = this.script.lease(this.layout, this.id.key(), cost, want, requests, back, spare)
			.timeout(this.timeout)
			.doOnNext((reply) -> apply(reply, sentAtNanos, cost))
			.doOnError(this::failed)
			.doOnCancel(this::forgetCall)
			.then()
			.cache();
		this.pending = call;
		return call;
	}

	private void apply(BucketScript.LeaseReply reply, long sentAtNanos, long cost) {
		this.guard.onSuccess();
		synchronized (this) {
			stopSpending();
			this.givingBack = 0;
			this.units = reply.granted();
			this.lotSize = reply.granted();
			this.unitsLeasedAtMicros = reply.atMicros();
			this.global = reply.decisions();
			this.globalCost = cost;
			this.globalAtNanos = this.clock.nanoTime();
			// Redis measured the window's end from a moment between sending and this
			// reply: counted from the sending, the leased units expire at the latest
			// when their window does, however slow the reply, and are never spent in the
			// next window, where Redis grants the whole limit again.
			this.unitsExpireAtNanos = windowEnd(sentAtNanos, reply.decisions());
			this.pending = null;
		}
	}

	/**
	 * What is left of the spendable lot becomes the returning lot: spent any later, its
	 * units could be admitted more than an interval and a timeout after Redis counted
	 * them.
	 */
	private void stopSpending() {
		// Units of a window that has ended come back too: Redis takes units off the window
		// they were leased in only, and gives the other limits of the tier theirs.
		if (this.units > 0) {
			this.returning = new Refund(this.units, this.unitsLeasedAtMicros);
			this.returningExpireAtNanos = this.unitsExpireAtNanos;
		}
		this.units = 0;
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
		this.guard.recordFailure(failure);
		synchronized (this) {
			// The call may or may not have given its lots back: neither is sent again, nor
			// counted as the client's. The spendable lot was not in it; it is not spent
			// after its renewal failed.
			stopSpending();
			this.givingBack = 0;
			this.pending = null;
		}
	}

	private synchronized void forgetCall() {
		this.givingBack = 0;
		this.pending = null;
	}

}
