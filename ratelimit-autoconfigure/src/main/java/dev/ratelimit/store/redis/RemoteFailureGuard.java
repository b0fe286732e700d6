package dev.ratelimit.store.redis;

import java.time.Duration;
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
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What a Redis-backed store does when Redis fails: the circuit breaker, the
 * configured {@link FailureMode}, a rate-limited warning, the health it reports, and
 * the background probe that closes the breaker once Redis answers again, so that a
 * store nobody sends requests to is healthy again too.
 */
public final class RemoteFailureGuard {

	private static final Log logger = LogFactory.getLog(RemoteFailureGuard.class);

	private final String storeName;

	private final FailureMode failureMode;

	private final CircuitBreaker circuitBreaker;

	private final Duration probeInterval;

	private final @Nullable BucketDecider localStore;

	private final Verdict denied;

	private final AtomicLong fallbacks = new AtomicLong();

	/**
	 * At most one warning per interval, however many requests fall back.
	 */
	private final ThrottledLog warnings;

	private final AtomicReference<@Nullable String> lastError = new AtomicReference<>();

	private final AtomicReference<@Nullable Disposable> probing = new AtomicReference<>();

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
		if (failureMode == FailureMode.LOCAL && localStore == null) {
			throw new IllegalArgumentException("ratelimit.redis.on-failure=local needs a local store");
		}
		if (probeInterval.isZero() || probeInterval.isNegative()) {
			throw new IllegalArgumentException("probe interval must be positive but was " + probeInterval);
		}
		this.storeName = storeName;
		this.failureMode = failureMode;
		this.circuitBreaker = circuitBreaker;
		this.probeInterval = probeInterval;
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
	 * Redis answered a request's call or a probe: the breaker closes.
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
	 * Redis failed or timed out on a background call (a sync, a probe).
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
	 * Whether requests are still served while the store cannot decide by itself: the
	 * failure mode admits them ({@code allow}) or decides them on this node's buckets
	 * ({@code local}); {@code deny} refuses them.
	 */
	public boolean serving() {
		return up() || this.failureMode != FailureMode.DENY;
	}

	/**
	 * Starts the background probe: every probe interval while the store is not
	 * {@link #up()}, one {@code ping} (never two at once), whose success closes the
	 * breaker and whose failure keeps it open. While the store is up a tick reads the
	 * breaker's state and sends nothing. Runs on Reactor's shared parallel scheduler:
	 * no thread of its own, and nothing left running once {@link #stopProbing()}.
	 * @param ping a call to Redis bounded by its own timeout, subscribed once per probe
	 * (so built anew on each subscription, for example by {@link Mono#defer})
	 */
	public void startProbing(Mono<Void> ping) {
		Disposable task = Flux.interval(this.probeInterval, this.probeInterval)
			.onBackpressureDrop()
			.concatMap((tick) -> up() ? Mono.empty() : probe(ping), 1)
			.subscribe();
		Disposable previous = this.probing.getAndSet(task);
		if (previous != null) {
			previous.dispose();
		}
	}

	/**
	 * Stops the background probe, a PING in flight included.
	 */
	public void stopProbing() {
		Disposable task = this.probing.getAndSet(null);
		if (task != null) {
			task.dispose();
		}
	}

	public boolean probing() {
		return this.probing.get() != null;
	}

	private Mono<Void> probe(Mono<Void> ping) {
		return ping.doOnSuccess((unused) -> onSuccess()).onErrorResume((failure) -> {
			recordFailure(failure);
			return Mono.empty();
		});
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
	 * until it can be. Counted as a failure, so that health says so from the start and
	 * the background probe heals the store once Redis answers, before any request.
	 */
	void unreachableAtStartUp(Throwable failure) {
		recordFailure(failure);
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
