package dev.ratelimit.web;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.Settlement;
import reactor.core.publisher.Mono;

/**
 * A store on a clock that never moves, after the port's contract: a rate limit counts
 * the units taken and charged against its quota (going past it when charged), a
 * concurrency limit the requests in flight; {@code check} takes only slots; every
 * settlement is recorded. It stands for the Caffeine store's check and settle, written
 * on another branch, so that the request path's tests do not wait for them.
 */
final class LedgerStore implements BucketDecider {

	private static final long RESET = Duration.ofMinutes(1).toNanos();

	final Map<BucketId, long[]> buckets = new ConcurrentHashMap<>();

	final List<Settlement> settlements = new CopyOnWriteArrayList<>();

	final AtomicInteger acquires = new AtomicInteger();

	final AtomicInteger checks = new AtomicInteger();

	@Override
	public String name() {
		return "caffeine";
	}

	@Override
	public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
		return Mono.just(acquireNow(id, tier, cost));
	}

	@Override
	public synchronized Verdict acquireNow(BucketId id, Tier tier, long cost) {
		this.acquires.incrementAndGet();
		return judge(id, tier, cost, true);
	}

	@Override
	public Mono<Verdict> check(BucketId id, Tier tier, long cost) {
		return Mono.just(checkNow(id, tier, cost));
	}

	@Override
	public synchronized Verdict checkNow(BucketId id, Tier tier, long cost) {
		this.checks.incrementAndGet();
		return judge(id, tier, cost, false);
	}

	@Override
	public Mono<Verdict> settle(BucketId id, Tier tier, Settlement settlement) {
		return Mono.fromCallable(() -> {
			synchronized (this) {
				this.settlements.add(settlement);
				long[] state = this.buckets.get(id);
				if (state == null) {
					return null;
				}
				state[0] = (settlement.units() > 0) ? state[0] + settlement.units()
						: Math.max(0, state[0] + settlement.units());
				if (settlement.ended()) {
					state[1] = Math.max(0, state[1] - 1);
				}
				return describe(tier, state, true, 0);
			}
		});
	}

	/**
	 * The units counted by {@code key}'s bucket of {@code tier}.
	 */
	long used(BucketId id) {
		return this.buckets.get(id)[0];
	}

	long inFlight(BucketId id) {
		return this.buckets.get(id)[1];
	}

	private Verdict judge(BucketId id, Tier tier, long cost, boolean take) {
		long[] state = this.buckets.computeIfAbsent(id, (key) -> new long[2]);
		boolean allowed = true;
		for (Limit limit : tier.limits()) {
			allowed &= limit.countsInFlight() ? state[1] < limit.quota() : state[0] + cost <= limit.quota();
		}
		if (allowed) {
			state[0] += take ? cost : 0;
			state[1] += SettlementPlan.countsInFlight(tier) ? 1 : 0;
		}
		return describe(tier, state, allowed, cost);
	}

	private static Verdict describe(Tier tier, long[] state, boolean allowed, long cost) {
		Decision[] decisions = new Decision[tier.limits().size()];
		for (int i = 0; i < decisions.length; i++) {
			Limit limit = tier.limits().get(i);
			if (limit.countsInFlight()) {
				boolean fits = allowed || state[1] < limit.quota();
				decisions[i] = fits ? new Decision(true, Math.max(0, limit.quota() - state[1]), limit.quota(), 0, 0)
						: Decision.rejected(0, limit.quota(), Duration.ofSeconds(1).toNanos());
			}
			else {
				long remaining = Math.max(0, limit.quota() - state[0]);
				boolean fits = allowed || state[0] + cost <= limit.quota();
				decisions[i] = fits ? new Decision(true, remaining, limit.quota(), RESET, 0)
						: Decision.rejected(remaining, limit.quota(), RESET);
			}
		}
		return Verdict.of(decisions);
	}

}
