package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.algorithm.MonotonicClock;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.BucketStore;
import dev.ratelimit.store.StoreHealth;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * Exact limits across a fleet: every decision is one atomic Lua script on Redis (one
 * round trip), timed by the Redis server's clock, so that any number of gateway nodes
 * share each bucket exactly. When Redis fails or is slower than the timeout, the
 * {@link RemoteFailureGuard} decides.
 */
public final class RedisBucketStore implements BucketStore {

	/**
	 * The store's name, as in {@code ratelimit.store}.
	 */
	public static final String NAME = "redis";

	private final ReactiveStringRedisTemplate redis;

	private final BucketScript script;

	private final Duration timeout;

	private final RemoteFailureGuard guard;

	/**
	 * Bound of each step of the read side (actuator listings, reads, resets), which
	 * answers with an error rather than a fallback when Redis fails.
	 */
	private final Duration readTimeout;

	private final MonotonicClock clock;

	/**
	 * Latency of the last health PING in microseconds; negative when it failed.
	 */
	private final AtomicLong pingMicros = new AtomicLong(-1);

	/**
	 * @param redis the template to call Redis with
	 * @param script the bucket script, bound to the key prefix
	 * @param timeout longest a decision may wait on Redis
	 * @param guard what to decide when Redis fails
	 * @param clock the clock health's PING is timed with
	 */
	public RedisBucketStore(ReactiveStringRedisTemplate redis, BucketScript script, Duration timeout,
			RemoteFailureGuard guard, MonotonicClock clock) {
		this.redis = redis;
		this.script = script;
		this.timeout = timeout;
		this.guard = guard;
		this.readTimeout = BucketScript.readTimeout(timeout);
		this.clock = clock;
	}

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
		if (!this.guard.allowsCall()) {
			return this.guard.fallback(id, tier, cost);
		}
		return this.script.acquire(this.script.layout(id.policy(), tier), id.key(), cost)
			.timeout(this.timeout)
			.map((decisions) -> {
				this.guard.onSuccess();
				return Verdict.of(decisions);
			})
			.onErrorResume((failure) -> this.guard.onFailure(failure, id, tier, cost));
	}

	@Override
	public Flux<BucketSnapshot> buckets(RateLimitPolicy policy) {
		return this.script.buckets(policy).timeout(this.readTimeout);
	}

	@Override
	public Flux<BucketSnapshot> bucket(RateLimitPolicy policy, String key) {
		return this.script.bucket(policy, key).timeout(this.readTimeout);
	}

	@Override
	public Mono<Boolean> reset(RateLimitPolicy policy, String key) {
		return this.script.reset(policy, key).timeout(this.readTimeout);
	}

	@Override
	public Mono<Long> bucketCount(RateLimitPolicy policy) {
		return this.script.count(policy).timeout(this.readTimeout);
	}

	/**
	 * The breaker's view, with the latency of the previous health check's PING; each
	 * call sends a new PING in the background, so that the health endpoint never
	 * waits on Redis.
	 */
	@Override
	public StoreHealth health() {
		long started = this.clock.nanoTime();
		this.redis.execute((connection) -> connection.ping())
			.next()
			.timeout(this.readTimeout)
			.subscribe((pong) -> this.pingMicros.set((this.clock.nanoTime() - started) / 1000),
					(failure) -> this.pingMicros.set(-1));
		Map<String, Object> details = this.guard.healthDetails();
		long ping = this.pingMicros.get();
		details.put("pingMicros", (ping >= 0) ? ping : "failed");
		return new StoreHealth(this.guard.up(), details);
	}

}
