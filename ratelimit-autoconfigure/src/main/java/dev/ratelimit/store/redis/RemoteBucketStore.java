package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.store.BlockSnapshot;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.BucketStore;
import dev.ratelimit.support.MonotonicClock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.context.SmartLifecycle;

/**
 * What the Redis-backed stores share: the bucket script, the guard deciding while
 * Redis fails, and a read side that goes straight to Redis, whatever decides requests.
 */
public abstract class RemoteBucketStore implements BucketStore {

	/**
	 * The Redis-backed stores' lifecycle phase: started after the Redis connection factory
	 * (phase 0) and before the web server, stopped after the web server has drained its
	 * requests and before the connection factory.
	 */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private static final Log logger = LogFactory.getLog(RemoteBucketStore.class);

	protected final BucketScript script;

	private final BucketReader reader;

	protected final Duration timeout;

	protected final RemoteFailureGuard guard;

	/**
	 * Bound of each step of the read side (actuator listings, reads, resets), which
	 * answers with an error rather than a fallback when Redis fails.
	 */
	final Duration readTimeout;

	protected final MonotonicClock clock;

	/**
	 * {@link #pingMicros} before any health check's PING has answered or failed.
	 */
	static final long NO_PING_YET = Long.MIN_VALUE;

	/**
	 * Latency of the last health check's PING in microseconds; -1 when it failed.
	 */
	final AtomicLong pingMicros = new AtomicLong(NO_PING_YET);

	/**
	 * Longest start-up waits for the warm-up ({@link #connect(boolean, Collection)}): well above the
	 * slowest warm-up measured on a busy machine (docs/benchmarks.md, section 7), room for
	 * an application starting around it, short enough not to hold a deployment up while
	 * Redis hangs.
	 */
	protected static final Duration START_UP_WAIT = Duration.ofSeconds(10);

	/**
	 * Bursts of calls of each script the warm-up makes, and the calls in each.
	 */
	static final int WARM_UP_ROUNDS = 3;

	static final int WARM_UP_BURST = 40;

	/**
	 * Longest start-up waits for {@link #connect(boolean, Collection)}: {@link #START_UP_WAIT} but in
	 * tests.
	 */
	private final Duration startUpWait;

	protected RemoteBucketStore(BucketScript script, Duration timeout, RemoteFailureGuard guard, MonotonicClock clock,
			Duration startUpWait) {
		this.script = script;
		this.startUpWait = startUpWait;
		this.reader = new BucketReader(script);
		this.timeout = timeout;
		this.guard = guard;
		this.readTimeout = BucketReader.readTimeout(timeout);
		this.clock = clock;
	}

	/**
	 * Opens the connection, loads the scripts and exercises the decision path before the
	 * first request needs them ({@link BucketScript#warmUp(int, int, Collection)}): on a
	 * just-started node of a busy machine, a request that finds no connection, a script
	 * Redis does not hold or its code path still cold is slower than the decision timeout,
	 * and the failure mode decides it. Start-up waits for this {@link #START_UP_WAIT} at most; a
	 * Redis that refuses the connection is reported at once and never stops start-up. A
	 * warning says only that Redis failed, when the client says so: a Redis merely slow
	 * to answer gets an INFO line, and the warm-up goes on in the background.
	 * @param lean whether this store judges with lean scripts
	 * @param leanPolicies the policies whose tiers this store judges with lean scripts
	 */
	protected void connect(boolean lean, Collection<RateLimitPolicy> leanPolicies) {
		CompletableFuture<Void> warmedUp = this.script.connection().ping()
			.doOnError(this.guard::unreachableAtStartUp)
			.then(Mono.defer(() -> this.script.warmUp(WARM_UP_ROUNDS, WARM_UP_BURST, lean, leanPolicies)
				.doOnError(this::warmUpFailed)))
			.toFuture();
		try {
			warmedUp.get(this.startUpWait.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			if (logger.isInfoEnabled()) {
				logger.info("Rate limit store '" + name() + "' has no answer from Redis yet after "
						+ this.startUpWait.toMillis() + "ms at start-up; start-up goes on, and requests are decided "
						+ "by ratelimit.redis.on-failure until Redis answers");
			}
		}
		catch (ExecutionException ex) {
			// Logged as it failed, above.
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Follow a live reload: the layouts of the tiers no longer in force are forgotten.
	 * @param policies every policy in force after the reload
	 */
	public void policiesReloaded(Collection<RateLimitPolicy> policies) {
		this.script.layouts().retain(policies);
	}

	private void warmUpFailed(Throwable failure) {
		if (logger.isWarnEnabled()) {
			logger.warn("Rate limit store '" + name() + "' reaches Redis but its start-up warm-up failed (" + failure
					+ "); the first requests may be decided by ratelimit.redis.on-failure");
		}
	}

	/**
	 * A health check's PING, sent in the background so that the health endpoint never
	 * waits on Redis. Bounded by the decision timeout, as the probe is, and its failure
	 * counts against the breaker as a request's would: a store that no request reaches
	 * says that Redis is down, and its probe then heals it once Redis answers.
	 */
	protected void pingInBackground() {
		long started = this.clock.nanoTime();
		this.script.connection().ping().timeout(this.timeout).subscribe(null, (failure) -> {
			this.pingMicros.set(-1);
			this.guard.recordFailure(failure);
		}, () -> this.pingMicros.set((this.clock.nanoTime() - started) / 1000));
	}

	/**
	 * The state of the circuit breaker guarding this store's calls to Redis.
	 */
	public CircuitBreaker.State circuitBreakerState() {
		return this.guard.circuitBreakerState();
	}

	/**
	 * Calls to Redis (decisions, syncs, settlements, renewals, PINGs) that had no answer
	 * within the timeout, since start, as the circuit breaker counts them: a decision call
	 * several requests shared, once for each.
	 */
	public long timedOutCalls() {
		return this.guard.timeouts();
	}

	/**
	 * Calls to Redis that failed otherwise (refused, reset, an error reply), since start.
	 */
	public long failedCalls() {
		return this.guard.errors();
	}

	/**
	 * Starts the guard's background probe: a PING answered within the decision
	 * timeout closes the breaker, so that a store with no traffic is healthy again
	 * once Redis answers as fast as a decision needs.
	 */
	protected void startProbing() {
		this.guard.startProbing(Mono.defer(() -> this.script.connection().ping().timeout(this.timeout)));
	}

	@Override
	public Flux<BucketSnapshot> buckets(RateLimitPolicy policy) {
		return this.reader.buckets(policy).timeout(this.readTimeout);
	}

	@Override
	public Flux<BucketSnapshot> bucket(RateLimitPolicy policy, String key) {
		return this.reader.bucket(policy, key).timeout(this.readTimeout);
	}

	@Override
	public Mono<Boolean> reset(RateLimitPolicy policy, String key) {
		return this.reader.reset(policy, key).timeout(this.readTimeout);
	}

	@Override
	public Flux<BlockSnapshot> blocks(RateLimitPolicy policy) {
		return this.reader.blocks(policy).timeout(this.readTimeout);
	}

	@Override
	public Flux<BlockSnapshot> blocks(RateLimitPolicy policy, String key) {
		return this.reader.blocks(policy, key).timeout(this.readTimeout);
	}

	@Override
	public Mono<Boolean> lift(RateLimitPolicy policy, String key) {
		return this.reader.lift(policy, key).timeout(this.readTimeout);
	}

	@Override
	public Mono<Long> bucketCount(RateLimitPolicy policy) {
		return this.reader.count(policy).timeout(this.readTimeout);
	}

}
