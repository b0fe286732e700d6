package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.Map;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.store.StoreHealth;
import dev.ratelimit.support.MonotonicClock;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.SmartLifecycle;

/**
 * Exact limits across a fleet: every decision is one atomic Lua script on Redis (one
 * round trip), timed by the Redis server's clock, so that any number of gateway nodes
 * share each bucket exactly. When Redis fails or is slower than the timeout, the
 * {@link RemoteFailureGuard} decides.
 */
public final class RedisBucketStore extends RemoteBucketStore implements SmartInitializingSingleton, SmartLifecycle {

	/**
	 * The store's name, as in {@code ratelimit.store}.
	 */
	public static final String NAME = StoreType.REDIS.storeName();

	private static final long NANOS_PER_MICRO = 1_000;

	/**
	 * @param script the bucket script, bound to the key prefix
	 * @param timeout longest a decision may wait on Redis
	 * @param guard what to decide when Redis fails
	 * @param clock the clock health's PING is timed with
	 */
	public RedisBucketStore(BucketScript script, Duration timeout, RemoteFailureGuard guard, MonotonicClock clock) {
		this(script, timeout, guard, clock, START_UP_WAIT);
	}

	RedisBucketStore(BucketScript script, Duration timeout, RemoteFailureGuard guard, MonotonicClock clock,
			Duration startUpWait) {
		super(script, timeout, guard, clock, startUpWait);
	}

	@Override
	public String name() {
		return NAME;
	}

	/**
	 * Opens the connection to Redis and warms the decision path up once the
	 * application's beans exist, before the web server starts.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		connect();
	}

	@Override
	public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
		if (!this.guard.allowsCall()) {
			return this.guard.fallback(id, tier, cost);
		}
		return this.script.acquire(this.script.layouts().layout(id.policy(), tier), id.key(), cost)
			.timeout(this.timeout)
			.map((decisions) -> {
				this.guard.onSuccess();
				return Verdict.of(decisions);
			})
			.onErrorResume((failure) -> this.guard.onFailure(failure, id, tier, cost));
	}

	/**
	 * Gives the units back on Redis, on every limit, as taken at Redis time less
	 * {@code heldNanos}. Not a decision, so no failure mode answers for it: while the
	 * breaker is open it is not tried, and a failure or a timeout counts against the
	 * breaker and errors the returned {@code Mono}.
	 */
	@Override
	public Mono<Verdict> settle(BucketId id, Tier tier, Settlement settlement) {
		long cost = -settlement.units();
		long heldNanos = settlement.admittedNanosAgo();
		if (!this.guard.allowsCall()) {
			return Mono.error(new IllegalStateException(
					"Rate limit store '" + NAME + "' does not call Redis while its circuit breaker is open"));
		}
		return Mono
			.defer(() -> this.script.refund(this.script.layouts().layout(id.policy(), tier), id.key(), cost,
					heldNanos / NANOS_PER_MICRO))
			.timeout(this.timeout)
			.doOnSuccess((done) -> this.guard.onSuccess())
			.doOnError(this.guard::recordFailure)
			.then(Mono.empty());
	}

	/**
	 * The breaker's view, with the latency of the previous health check's PING
	 * ({@link #pingInBackground()}).
	 */
	@Override
	public StoreHealth health() {
		pingInBackground();
		Map<String, Object> details = this.guard.healthDetails();
		long ping = this.pingMicros.get();
		details.put("pingMicros", (ping >= 0) ? ping : (ping == NO_PING_YET) ? "pending" : "failed");
		return new StoreHealth(this.guard.up(), this.guard.serving(), details);
	}

	/**
	 * Starts the background probe that closes the breaker once Redis answers again.
	 */
	@Override
	public void start() {
		startProbing();
	}

	@Override
	public void stop() {
		this.guard.stopProbing();
	}

	@Override
	public boolean isRunning() {
		return this.guard.probing();
	}

	/**
	 * The hybrid store's phase: the probe starts after the Redis connection factory
	 * (phase 0) and stops before it.
	 */
	@Override
	public int getPhase() {
		return PHASE;
	}

}
