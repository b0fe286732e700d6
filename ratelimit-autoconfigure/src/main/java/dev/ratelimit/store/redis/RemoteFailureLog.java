package dev.ratelimit.store.redis;

import dev.ratelimit.store.BucketId;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * What a Redis-backed store logs about Redis failing and coming back: at most one
 * warning per interval however many requests fall back, and one line each when Redis
 * is unreachable at start-up and when it answers again.
 */
final class RemoteFailureLog {

	/**
	 * Under the guard's name, as operators configure it.
	 */
	private static final Log logger = LogFactory.getLog(RemoteFailureGuard.class);

	private final String storeName;

	private final String failureMode;

	private final ThrottledLog warnings;

	RemoteFailureLog(String storeName, FailureMode failureMode, MonotonicClock clock) {
		this.storeName = storeName;
		this.failureMode = failureMode.configName();
		this.warnings = new ThrottledLog(logger, clock);
	}

	void fallingBack(BucketId id, RemoteHealth health) {
		this.warnings.warn(() -> "Rate limit store '" + this.storeName + "' cannot reach Redis (" + health.lastError()
				+ ", circuit breaker " + health.breakerState() + "); requests are decided by ratelimit.redis.on-failure="
				+ this.failureMode + ", the latest for policy '" + id.policy() + "'", null);
	}

	void recovered(long fallbacks) {
		if (logger.isInfoEnabled()) {
			logger.info("Rate limit store '" + this.storeName + "' reaches Redis again; " + fallbacks
					+ " request(s) decided by ratelimit.redis.on-failure=" + this.failureMode + " since start");
		}
	}

	void unreachableAtStartUp(Throwable failure) {
		if (logger.isWarnEnabled()) {
			logger.warn("Rate limit store '" + this.storeName + "' cannot reach Redis at start-up (" + failure
					+ "); requests are decided by ratelimit.redis.on-failure=" + this.failureMode + " until it can");
		}
	}

}
