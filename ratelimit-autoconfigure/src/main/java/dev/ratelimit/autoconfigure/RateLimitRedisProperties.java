package dev.ratelimit.autoconfigure;

import java.time.Duration;

import dev.ratelimit.store.redis.FailureMode;
import dev.ratelimit.store.redis.RedisBucketStore;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the Redis-backed stores ({@code redis} and {@code hybrid}). The
 * connection itself is Spring Boot's, configured under {@code spring.data.redis}.
 */
@ConfigurationProperties("ratelimit.redis")
public class RateLimitRedisProperties {

	/**
	 * Prefix of every Redis key the limiter writes; keys look like
	 * '<prefix>:{<policy>:<tier>:<client key>}:<n>'.
	 */
	private String keyPrefix = "rl";

	/**
	 * Longest a decision may wait on Redis before the failure mode decides, so the redis
	 * store is exact only for the decisions Redis answers within it. The default is about
	 * twice the slowest wait measured on a healthy Redis right after start-up, on a busy
	 * two-core machine (see docs/benchmarks.md); a Redis that hangs makes only the
	 * circuit breaker's failure-threshold decisions wait that long.
	 */
	private Duration timeout = Duration.ofSeconds(1);

	/**
	 * What to decide when Redis fails or is too slow: allow (fail open), deny (fail
	 * closed) or local (this node's Caffeine buckets until Redis is back).
	 */
	private FailureMode onFailure = FailureMode.ALLOW;

	/**
	 * Longest wait between two attempts to reconnect after the connection to Redis is
	 * lost: the client's back-off (1ms, 2ms, 4ms and so on, doubling) stops growing
	 * there, so that a restarted Redis is used again within about this much once it
	 * accepts connections. Applied to the application's Lettuce client resources, so to
	 * all of its Redis connections, while a policy uses the redis or hybrid store;
	 * Lettuce's own bound is 30s.
	 */
	private Duration maxReconnectDelay = Duration.ofSeconds(1);

	/**
	 * How long the redis store's slot of a request in flight (algorithm: concurrency)
	 * lives in Redis unless renewed: each node renews its slots every third of it while
	 * their requests are in flight, so that the slots of a node that crashed come back to
	 * the fleet after at most this long. A node that cannot reach Redis for longer loses
	 * its slots to the other nodes, and its requests still in flight then count nowhere
	 * in the fleet's limit. Shorter frees a crashed node's slots sooner, for more
	 * renewals (one call per bucket with requests in flight per node, every third of it).
	 */
	private Duration slotLeaseTime = Duration.ofSeconds(30);

	/**
	 * Circuit breaker that stops calling a failing Redis.
	 */
	private final CircuitBreaker circuitBreaker = new CircuitBreaker();

	/**
	 * Whether a node refuses a bucket's requests by itself, without calling Redis, once
	 * Redis has refused one of the same cost, until that refusal's retry-after: exact,
	 * since other nodes can only take more of the bucket meanwhile. Tiers with a
	 * concurrency limit always ask Redis.
	 */
	private boolean localRefusals = true;

	/**
	 * Calls concurrent requests of one bucket share.
	 */
	private final SharedCalls sharedCalls = new SharedCalls();

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public FailureMode getOnFailure() {
		return this.onFailure;
	}

	public void setOnFailure(FailureMode onFailure) {
		this.onFailure = onFailure;
	}

	public Duration getMaxReconnectDelay() {
		return this.maxReconnectDelay;
	}

	public void setMaxReconnectDelay(Duration maxReconnectDelay) {
		this.maxReconnectDelay = maxReconnectDelay;
	}

	public Duration getSlotLeaseTime() {
		return this.slotLeaseTime;
	}

	public void setSlotLeaseTime(Duration slotLeaseTime) {
		this.slotLeaseTime = slotLeaseTime;
	}

	public CircuitBreaker getCircuitBreaker() {
		return this.circuitBreaker;
	}

	public boolean isLocalRefusals() {
		return this.localRefusals;
	}

	public void setLocalRefusals(boolean localRefusals) {
		this.localRefusals = localRefusals;
	}

	public SharedCalls getSharedCalls() {
		return this.sharedCalls;
	}

	/**
	 * Calls that judge several concurrent requests of one bucket: a request that finds
	 * no call in flight for its bucket goes at once, those that arrive meanwhile go
	 * together in the next call, judged in order as if each came alone.
	 */
	public static class SharedCalls {

		/**
		 * Most requests one call judges; more wait for a call of their own. 1: every
		 * request its own call.
		 */
		private int maxBatch = RedisBucketStore.DEFAULT_MAX_BATCH;

		public int getMaxBatch() {
			return this.maxBatch;
		}

		public void setMaxBatch(int maxBatch) {
			this.maxBatch = maxBatch;
		}

	}

	/**
	 * The circuit breaker that stops calling a failing Redis.
	 */
	public static class CircuitBreaker {

		/**
		 * Consecutive failed or timed-out calls after which the breaker opens and the
		 * failure mode decides without calling Redis.
		 */
		private int failureThreshold = 5;

		/**
		 * How long the breaker stays open before one call probes whether Redis is back;
		 * also the Retry-After of requests rejected by on-failure=deny.
		 */
		private Duration openDuration = Duration.ofSeconds(5);

		/**
		 * How often a background PING probes Redis while the store cannot decide by
		 * itself (the breaker open, or a call failed since the last success): its
		 * success closes the breaker and the store's health is up again, with no
		 * request needed. Nothing is sent while Redis answers.
		 */
		private Duration probeInterval = Duration.ofSeconds(1);

		public int getFailureThreshold() {
			return this.failureThreshold;
		}

		public void setFailureThreshold(int failureThreshold) {
			this.failureThreshold = failureThreshold;
		}

		public Duration getOpenDuration() {
			return this.openDuration;
		}

		public void setOpenDuration(Duration openDuration) {
			this.openDuration = openDuration;
		}

		public Duration getProbeInterval() {
			return this.probeInterval;
		}

		public void setProbeInterval(Duration probeInterval) {
			this.probeInterval = probeInterval;
		}

	}

}
