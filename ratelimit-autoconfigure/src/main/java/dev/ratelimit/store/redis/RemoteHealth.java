package dev.ratelimit.store.redis;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * The health a Redis-backed store reports: whether it decides by itself, whether
 * requests are still served, and the details (breaker, failure mode, fallbacks, the last
 * error while down).
 */
final class RemoteHealth {

	private final String storeName;

	private final CircuitBreaker circuitBreaker;

	private final FailureFallback fallback;

	private final AtomicReference<@Nullable String> lastError = new AtomicReference<>();

	private final AtomicLong timeouts = new AtomicLong();

	private final AtomicLong errors = new AtomicLong();

	RemoteHealth(String storeName, CircuitBreaker circuitBreaker, FailureFallback fallback) {
		this.storeName = storeName;
		this.circuitBreaker = circuitBreaker;
		this.fallback = fallback;
	}

	void failed(Throwable failure) {
		((failure instanceof TimeoutException) ? this.timeouts : this.errors).incrementAndGet();
		this.lastError.set(describe(failure));
	}

	/**
	 * Calls to Redis that had no answer within the timeout, since start.
	 */
	long timeouts() {
		return this.timeouts.get();
	}

	/**
	 * Calls to Redis that failed otherwise (refused, reset, an error reply), since start.
	 */
	long errors() {
		return this.errors.get();
	}

	@Nullable String lastError() {
		return this.lastError.get();
	}

	String breakerState() {
		return this.circuitBreaker.state().displayName();
	}

	/**
	 * Whether the store decides by itself: the breaker is closed and the last call
	 * succeeded.
	 */
	boolean up() {
		return this.circuitBreaker.state() == CircuitBreaker.State.CLOSED
				&& this.circuitBreaker.consecutiveFailures() == 0;
	}

	/**
	 * Whether requests are still served while the store cannot decide by itself: the
	 * failure mode admits them ({@code allow}) or decides them on this node's buckets
	 * ({@code local}); {@code deny} refuses them.
	 */
	boolean serving() {
		return up() || this.fallback.failureMode() != FailureMode.DENY;
	}

	Map<String, Object> details() {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("store", this.storeName);
		details.put("remote", up() ? "UP" : "DOWN");
		details.put("failureMode", this.fallback.failureMode().configName());
		details.put("circuitBreaker", breakerState());
		details.put("fallbacks", this.fallback.fallbacks());
		String error = this.lastError.get();
		if (error != null && !up()) {
			details.put("lastError", error);
		}
		return details;
	}

	private static String describe(Throwable failure) {
		if (failure instanceof TimeoutException) {
			return "no answer within ratelimit.redis.timeout";
		}
		String message = failure.getMessage();
		return failure.getClass().getSimpleName() + ((message != null) ? ": " + message : "");
	}

}
