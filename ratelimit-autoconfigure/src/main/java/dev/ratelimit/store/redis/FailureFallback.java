package dev.ratelimit.store.redis;

import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.Settlement;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The decision of the configured {@link FailureMode} while Redis cannot decide, and how
 * many requests it decided; and the settlement of the requests it admitted, where it
 * decided them.
 */
final class FailureFallback {

	private final FailureMode failureMode;

	private final @Nullable BucketDecider localStore;

	private final Verdict denied;

	private final AtomicLong fallbacks = new AtomicLong();

	/**
	 * @param failureMode what to decide
	 * @param localStore where {@link FailureMode#LOCAL} decides; may be {@code null} for
	 * the other modes
	 * @param retryAfterNanos what a {@link FailureMode#DENY} rejection tells the client
	 */
	FailureFallback(FailureMode failureMode, @Nullable BucketDecider localStore, long retryAfterNanos) {
		if (failureMode == FailureMode.LOCAL && localStore == null) {
			throw new IllegalArgumentException("ratelimit.redis.on-failure=local needs a local store");
		}
		this.failureMode = failureMode;
		this.localStore = localStore;
		this.denied = Verdict.withoutLimits(false, retryAfterNanos);
	}

	FailureMode failureMode() {
		return this.failureMode;
	}

	/**
	 * Requests decided here since start.
	 */
	long fallbacks() {
		return this.fallbacks.get();
	}

	/**
	 * An {@link BucketDecider#acquire acquire}'s verdict.
	 */
	Mono<Verdict> decide(BucketId id, Tier tier, long cost) {
		this.fallbacks.incrementAndGet();
		return switch (this.failureMode) {
			case ALLOW -> Mono.just(Verdict.FAIL_OPEN);
			case DENY -> Mono.just(this.denied);
			case LOCAL -> this.localStore.acquire(id, tier, cost)
				.flatMap((verdict) -> local(id, tier, verdict, Settlement.neverForwarded(cost, 0)));
		};
	}

	/**
	 * A {@link BucketDecider#check check}'s verdict: the local store's check took only
	 * its slots, which a refusal gives back.
	 */
	Mono<Verdict> check(BucketId id, Tier tier, long cost) {
		this.fallbacks.incrementAndGet();
		return switch (this.failureMode) {
			case ALLOW -> Mono.just(Verdict.FAIL_OPEN);
			case DENY -> Mono.just(this.denied);
			case LOCAL -> this.localStore.check(id, tier, cost)
				.flatMap((verdict) -> local(id, tier, verdict, new Settlement(0, 0, true, false)));
		};
	}

	/**
	 * Settle a request this failure mode admitted: on the local store that took its units
	 * and slots; with no limit consulted ({@code allow}), nothing to settle, an empty
	 * {@code Mono}. Not a decision: not counted among the fallbacks.
	 */
	Mono<Verdict> settle(BucketId id, Tier tier, Settlement settlement) {
		return (this.failureMode == FailureMode.LOCAL) ? this.localStore.settle(id, tier, settlement) : Mono.empty();
	}

	/**
	 * The local store's verdict as the failure mode's. A failure mode never holds: a
	 * request the local store would hold is refused until it would have been released,
	 * and what it took given back ({@code undo}), so that a shaping limit meters while
	 * Redis is down rather than letting through at once what it would have spread out.
	 */
	private Mono<Verdict> local(BucketId id, Tier tier, Verdict verdict, Settlement undo) {
		if (verdict.delayNanos() == 0) {
			return Mono.just(verdict.asFallback());
		}
		return this.localStore.settle(id, tier, undo).thenReturn(Verdict.withoutLimits(false, verdict.delayNanos()));
	}

}
