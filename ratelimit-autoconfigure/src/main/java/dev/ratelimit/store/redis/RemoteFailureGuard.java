package dev.ratelimit.store.redis;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.algorithm.MonotonicClock;
import dev.ratelimit.algorithm.Nanos;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * What a Redis-backed store does when Redis fails: the circuit breaker, the
 * configured {@link FailureMode}, a rate-limited warning, and the health it reports.
 */
public final class RemoteFailureGuard {

	private static final Log logger = LogFactory.getLog(RemoteFailureGuard.class);

	private final String storeName;

	private final FailureMode failureMode;

	private final CircuitBreaker circuitBreaker;

	private final @Nullable BucketDecider localStore;

	private final Verdict denied;

	private final AtomicLong fallbacks = new AtomicLong();

	/**
	 * At most one warning per interval, however many requests fall back.
	 */
	private final ThrottledLog warnings;

	private final AtomicReference<@Nullable String> lastError = new AtomicReference<>();

	/**
	 * @param storeName the guarded store's name, for logs and health
	 * @param failureMode what to decide while Redis fails
	 * @param circuitBreaker the breaker guarding Redis calls
	 * @param localStore where {@link FailureMode#LOCAL} decides; may be {@code null}
	 * for the other modes
	 * @param clock the clock of the warning's rate limit
	 */
	public RemoteFailureGuard(String storeName, FailureMode failureMode, CircuitBreaker circuitBreaker,
			@Nullable BucketDecider localStore, MonotonicClock clock) {
		if (failureMode == FailureMode.LOCAL && localStore == null) {
			throw new IllegalArgumentException("ratelimit.redis.on-failure=local needs a local store");
		}
		this.storeName = storeName;
		this.failureMode = failureMode;
		this.circuitBreaker = circuitBreaker;
		this.localStore = localStore;
		this.warnings = new ThrottledLog(logger, clock);
		// Clients are told to come back once the breaker probes again, never sooner
		// than a second.
		long retryAfter = Math.max(Nanos.PER_SECOND, circuitBreaker.openDurationNanos());
		this.denied = Verdict.withoutLimits(false, retryAfter);
	}

	/**
	 * Whether a call may go to Redis now.
	 */
	public boolean allowsCall() {
		return this.circuitBreaker.allowsCall();
	}

	/**
	 * Redis answered.
	 */
	public void onSuccess() {
		boolean recovering = !up();
		this.circuitBreaker.onSuccess();
		if (recovering && logger.isInfoEnabled()) {
			logger.info("Rate limit store '" + this.storeName + "' reaches Redis again; " + this.fallbacks.get()
					+ " request(s) decided by ratelimit.redis.on-failure=" + this.failureMode.configName()
					+ " since start");
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
	 * Redis failed or timed out on a background call.
	 */
	public void recordFailure(Throwable failure) {
		this.circuitBreaker.onFailure();
		this.lastError.set(describe(failure));
	}

	/**
	 * Decide by the failure mode, without calling Redis.
	 */
	public Mono<Verdict> fallback(BucketId id, Tier tier, long cost) {
		this.fallbacks.incrementAndGet();
		warn(id);
		return switch (this.failureMode) {
			case ALLOW -> Mono.just(Verdict.FAIL_OPEN);
			case DENY -> Mono.just(this.denied);
			case LOCAL -> this.localStore.acquire(id, tier, cost).map(Verdict::asFallback);
		};
	}

	/**
	 * Whether the store decides by itself: the breaker is closed and the last call
	 * succeeded.
	 */
	public boolean up() {
		return this.circuitBreaker.state() == CircuitBreaker.State.CLOSED
				&& this.circuitBreaker.consecutiveFailures() == 0;
	}

	/**
	 * The health details every Redis-backed store reports.
	 */
	public Map<String, Object> healthDetails() {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("store", this.storeName);
		details.put("remote", up() ? "UP" : "DOWN");
		details.put("failureMode", this.failureMode.configName());
		details.put("circuitBreaker", this.circuitBreaker.state().displayName());
		details.put("fallbacks", this.fallbacks.get());
		String error = this.lastError.get();
		if (error != null && !up()) {
			details.put("lastError", error);
		}
		return details;
	}

	/**
	 * Redis could not be reached when the store started: say so once, and what decides
	 * until it can be.
	 */
	void unreachableAtStartUp(Throwable failure) {
		if (logger.isWarnEnabled()) {
			logger.warn("Rate limit store '" + this.storeName + "' cannot reach Redis at start-up (" + failure
					+ "); requests are decided by ratelimit.redis.on-failure=" + this.failureMode.configName()
					+ " until it can");
		}
	}

	private void warn(BucketId id) {
		this.warnings.warn(() -> "Rate limit store '" + this.storeName + "' cannot reach Redis ("
				+ this.lastError.get() + ", circuit breaker " + this.circuitBreaker.state().displayName()
				+ "); requests are decided by ratelimit.redis.on-failure=" + this.failureMode.configName()
				+ ", the latest for policy '" + id.policy() + "'", null);
	}

	private static String describe(Throwable failure) {
		if (failure instanceof TimeoutException) {
			return "no answer within ratelimit.redis.timeout";
		}
		String message = failure.getMessage();
		return failure.getClass().getSimpleName() + ((message != null) ? ": " + message : "");
	}

}
