package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.Map;

import dev.ratelimit.algorithm.Nanos;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.support.MonotonicClock;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * What a Redis-backed store does when Redis fails, each job in a class of its own: the
 * {@link CircuitBreaker} decides whether a call may go to Redis, the
 * {@link FailureFallback} decides by the configured {@link FailureMode} instead, the
 * {@link RemoteFailureLog} says so, the {@link RemoteHealth} reports it and the
 * {@link RecoveryProbe} closes the breaker once Redis answers again. This class tells each
 * of them what happened.
 */
public final class RemoteFailureGuard {

	private final CircuitBreaker circuitBreaker;

	private final FailureFallback fallback;

	private final RemoteFailureLog log;

	private final RemoteHealth health;

	private final RecoveryProbe probe;

	/**
	 * @param storeName the guarded store's name, for logs and health
	 * @param failureMode what to decide while Redis fails
	 * @param circuitBreaker the breaker guarding Redis calls
	 * @param probeInterval how often the background probe calls Redis while the store
	 * is not {@link #up()}
	 * @param localStore where {@link FailureMode#LOCAL} decides; may be {@code null}
	 * for the other modes
	 * @param clock the clock of the warning's rate limit
	 */
	public RemoteFailureGuard(String storeName, FailureMode failureMode, CircuitBreaker circuitBreaker,
			Duration probeInterval, @Nullable BucketDecider localStore, MonotonicClock clock) {
		this.circuitBreaker = circuitBreaker;
		// Clients are told to come back once the breaker probes again, never sooner
		// than a second.
		this.fallback = new FailureFallback(failureMode, localStore,
				Math.max(Nanos.PER_SECOND, circuitBreaker.openDurationNanos()));
		this.probe = new RecoveryProbe(probeInterval, this);
		this.log = new RemoteFailureLog(storeName, failureMode, clock);
		this.health = new RemoteHealth(storeName, circuitBreaker, this.fallback);
	}

	/**
	 * Whether a call may go to Redis now.
	 */
	public boolean allowsCall() {
		return this.circuitBreaker.allowsCall();
	}

	/**
	 * Redis answered a request's call or a probe: the breaker closes.
	 */
	public void onSuccess() {
		boolean recovering = !up();
		this.circuitBreaker.onSuccess();
		if (recovering) {
			this.log.recovered(this.fallback.fallbacks());
		}
	}

	/**
	 * Redis failed or timed out while judging a request: count it against the breaker
	 * and decide by the failure mode.
	 */
	public Mono<Verdict> onFailure(Throwable failure, BucketId id, Tier tier, long cost) {
		recordFailure(failure);
		return fallback(id, tier, cost);
	}

	/**
	 * Redis failed or timed out while checking a request ({@link BucketDecider#check}):
	 * count it against the breaker and decide by the failure mode.
	 */
	public Mono<Verdict> onCheckFailure(Throwable failure, BucketId id, Tier tier, long cost) {
		recordFailure(failure);
		return checkFallback(id, tier, cost);
	}

	/**
	 * Redis failed or timed out on a call that decides nothing (a sync, a probe, a
	 * settlement, a renewal).
	 */
	public void recordFailure(Throwable failure) {
		this.circuitBreaker.onFailure();
		this.health.failed(failure);
	}

	/**
	 * Decide by the failure mode, without calling Redis.
	 */
	public Mono<Verdict> fallback(BucketId id, Tier tier, long cost) {
		Mono<Verdict> verdict = this.fallback.decide(id, tier, cost);
		this.log.fallingBack(id, this.health);
		return verdict;
	}

	/**
	 * Check a request by the failure mode, without calling Redis.
	 */
	public Mono<Verdict> checkFallback(BucketId id, Tier tier, long cost) {
		Mono<Verdict> verdict = this.fallback.check(id, tier, cost);
		this.log.fallingBack(id, this.health);
		return verdict;
	}

	/**
	 * Settle a request the failure mode admitted ({@link Settlement#fallback()}), where it
	 * decided it, without calling Redis.
	 */
	public Mono<Verdict> settleFallback(BucketId id, Tier tier, Settlement settlement) {
		return this.fallback.settle(id, tier, settlement);
	}

	/**
	 * Whether the store decides by itself: the breaker is closed and the last call
	 * succeeded.
	 */
	public boolean up() {
		return this.health.up();
	}

	/**
	 * Whether requests are still served while the store cannot decide by itself.
	 */
	public boolean serving() {
		return this.health.serving();
	}

	CircuitBreaker.State circuitBreakerState() {
		return this.circuitBreaker.state();
	}

	/**
	 * Calls to Redis that had no answer within the timeout, since start.
	 */
	long timeouts() {
		return this.health.timeouts();
	}

	/**
	 * Calls to Redis that failed otherwise (refused, reset, an error reply), since start.
	 */
	long errors() {
		return this.health.errors();
	}

	/**
	 * The health details every Redis-backed store reports.
	 */
	public Map<String, Object> healthDetails() {
		return this.health.details();
	}

	/**
	 * Starts the background probe ({@link RecoveryProbe}).
	 * @param ping a call to Redis bounded by its own timeout, subscribed once per probe
	 * (so built anew on each subscription, for example by {@link Mono#defer})
	 */
	public void startProbing(Mono<Void> ping) {
		this.probe.start(ping);
	}

	/**
	 * Stops the background probe, a PING in flight included.
	 */
	public void stopProbing() {
		this.probe.stop();
	}

	public boolean probing() {
		return this.probe.running();
	}

	/**
	 * Redis could not be reached when the store started: say so once, and what decides
	 * until it can be. Counted as a failure, so that health says so from the start and
	 * the background probe heals the store once Redis answers, before any request.
	 */
	void unreachableAtStartUp(Throwable failure) {
		recordFailure(failure);
		this.log.unreachableAtStartUp(failure);
	}

}
