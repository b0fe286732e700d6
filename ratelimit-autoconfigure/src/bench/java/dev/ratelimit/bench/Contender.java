package dev.ratelimit.bench;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.google.common.util.concurrent.RateLimiter;
import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.support.MonotonicClock;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.caffeine.Bucket4jCaffeine;
import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Every limiter the benchmarks compare, each configured for a {@link Quota}: our five
 * algorithms on the Caffeine store, and what a Spring gateway user would pick instead,
 * each with a Caffeine cache of the same maximum size holding one state per key.
 */
public enum Contender {

	FIXED_WINDOW("fixed-window"),

	SLIDING_WINDOW_LOG("sliding-window-log"),

	SLIDING_WINDOW_COUNTER("sliding-window-counter"),

	TOKEN_BUCKET("token-bucket"),

	LEAKY_BUCKET("leaky-bucket"),

	/**
	 * A Bucket4j local (lock-free) bucket per key in a Caffeine cache.
	 */
	BUCKET4J("bucket4j"),

	/**
	 * Bucket4j's Caffeine proxy manager used as Spring Cloud Gateway's
	 * {@code Bucket4jRateLimiter} uses it: an asynchronous proxy built per request.
	 */
	BUCKET4J_SCG("bucket4j-scg"),

	/**
	 * A Guava {@code RateLimiter} (smooth bursty) per key in a Caffeine cache.
	 */
	GUAVA("guava"),

	/**
	 * A Resilience4j {@code AtomicRateLimiter} per key in a Caffeine cache.
	 */
	RESILIENCE4J("resilience4j");

	/**
	 * A quota no benchmark exhausts: a trillion units an hour.
	 */
	static final long UNLIMITED = 1_000_000_000_000L;

	static final Duration HOUR = Duration.ofHours(1);

	/**
	 * The policy and tier names of every benchmarked bucket.
	 */
	public static final String POLICY = "bench";

	public static final String TIER = "anonymous";

	private final String label;

	Contender(String label) {
		this.label = label;
	}

	/**
	 * The name in reports and JMH parameters.
	 */
	public String label() {
		return this.label;
	}

	/**
	 * Whether this is one of our algorithms.
	 */
	public boolean ours() {
		return ordinal() <= LEAKY_BUCKET.ordinal();
	}

	public static Contender of(String label) {
		for (Contender contender : values()) {
			if (contender.label.equals(label)) {
				return contender;
			}
		}
		throw new IllegalArgumentException("no contender named " + label);
	}

	/**
	 * The bucket of client {@code key}, keyed as the gateway filter keys it.
	 */
	public static BucketId id(String key) {
		return new BucketId(POLICY, TIER, key);
	}

	/**
	 * A client key that looks like an IPv4 address, distinct for every {@code index}
	 * below 2^24.
	 */
	public static String clientKey(int index) {
		return "10." + ((index >>> 16) & 0xff) + "." + ((index >>> 8) & 0xff) + "." + (index & 0xff);
	}

	/**
	 * A limiter of this kind holding at most {@code maximumKeys} keys.
	 */
	public KeyedLimiter create(Quota quota, long maximumKeys) {
		if (ours()) {
			return ours(limit(quota), maximumKeys);
		}
		return switch (this) {
			case BUCKET4J -> new Bucket4jLocal(bandwidth(quota), maximumKeys);
			case BUCKET4J_SCG -> new Bucket4jScg(bandwidth(quota), maximumKeys);
			case GUAVA -> new GuavaPerKey(quota, maximumKeys);
			case RESILIENCE4J -> new Resilience4jPerKey(quota, maximumKeys);
			default -> throw new IllegalStateException("unhandled contender " + this);
		};
	}

	/**
	 * Our algorithm's limit for {@code quota}. The sliding window log stores every
	 * admitted unit, so its open quota on one hot key is a million per 10 ms: it never
	 * fills, and its log stays at the steady state of expiring one entry per request.
	 */
	public Limit limit(Quota quota) {
		return switch (this) {
			case FIXED_WINDOW -> (quota == Quota.EXHAUSTED) ? new FixedWindow(1, HOUR) : new FixedWindow(UNLIMITED, HOUR);
			case SLIDING_WINDOW_LOG -> switch (quota) {
				case OPEN_HOT -> new SlidingWindowLog(1_000_000, Duration.ofMillis(10));
				case OPEN -> new SlidingWindowLog(1_000_000, HOUR);
				case EXHAUSTED -> new SlidingWindowLog(1, HOUR);
			};
			case SLIDING_WINDOW_COUNTER -> (quota == Quota.EXHAUSTED) ? new SlidingWindowCounter(1, HOUR)
					: new SlidingWindowCounter(UNLIMITED, HOUR);
			case TOKEN_BUCKET -> (quota == Quota.EXHAUSTED) ? new TokenBucket(1, 1, HOUR)
					: new TokenBucket(UNLIMITED, UNLIMITED, HOUR);
			case LEAKY_BUCKET -> (quota == Quota.EXHAUSTED) ? new LeakyBucket(1, 1, HOUR)
					: new LeakyBucket(UNLIMITED, UNLIMITED, HOUR);
			default -> throw new IllegalStateException(this + " is not one of our algorithms");
		};
	}

	/**
	 * Our Caffeine store judging every key against {@code limit}.
	 */
	public static KeyedLimiter ours(Limit limit, long maximumKeys) {
		return new OurStore(new Tier(TIER, List.of(limit)), maximumKeys);
	}

	/**
	 * Consume what the gateway filter reads of a verdict: admitted or not, and the
	 * reported limit's remaining and reset for the headers (in nanoseconds, as Bucket4j's
	 * probe gives its wait: turning it into seconds is header formatting either way).
	 */
	public static void consume(Verdict verdict, Blackhole blackhole) {
		Decision reported = verdict.reported();
		blackhole.consume(verdict.allowed());
		blackhole.consume(reported.remaining());
		blackhole.consume(reported.resetNanos());
	}

	private static Bandwidth bandwidth(Quota quota) {
		long capacity = (quota == Quota.EXHAUSTED) ? 1 : UNLIMITED;
		return Bandwidth.builder().capacity(capacity).refillGreedy(capacity, HOUR).build();
	}

	/**
	 * Idle keys are kept for an hour by every cache, as ours keeps a bucket for its
	 * limit's idle timeout.
	 */
	private static <K, V> Cache<K, V> cache(long maximumKeys) {
		return Caffeine.newBuilder().maximumSize(maximumKeys).expireAfterAccess(HOUR).build();
	}

	private static final class OurStore implements KeyedLimiter {

		private final CaffeineBucketStore store;

		private final Tier tier;

		OurStore(Tier tier, long maximumKeys) {
			this.store = new CaffeineBucketStore(MonotonicClock.SYSTEM, maximumKeys);
			this.tier = tier;
		}

		/**
		 * The synchronous entry point the gateway filter calls for this store.
		 */
		@Override
		public Object acquire(BucketId id) {
			return this.store.acquireNow(id, this.tier, 1);
		}

		@Override
		public void acquire(BucketId id, Blackhole blackhole) {
			consume(this.store.acquireNow(id, this.tier, 1), blackhole);
		}

		@Override
		public boolean admitted(Object answer) {
			return ((Verdict) answer).allowed();
		}

	}

	private static final class Bucket4jLocal implements KeyedLimiter {

		private final Cache<BucketId, Bucket> buckets;

		private final Bandwidth bandwidth;

		Bucket4jLocal(Bandwidth bandwidth, long maximumKeys) {
			this.buckets = cache(maximumKeys);
			this.bandwidth = bandwidth;
		}

		@Override
		public Object acquire(BucketId id) {
			Bucket bucket = this.buckets.getIfPresent(id);
			if (bucket == null) {
				bucket = this.buckets.get(id, (newId) -> Bucket.builder().addLimit(this.bandwidth).build());
			}
			return bucket.tryConsumeAndReturnRemaining(1);
		}

		/**
		 * What a caller reads of a probe: consumed or not, the tokens left and the wait
		 * for the next.
		 */
		@Override
		public void acquire(BucketId id, Blackhole blackhole) {
			ConsumptionProbe probe = (ConsumptionProbe) acquire(id);
			blackhole.consume(probe.isConsumed());
			blackhole.consume(probe.getRemainingTokens());
			blackhole.consume(probe.getNanosToWaitForRefill());
		}

		@Override
		public boolean admitted(Object answer) {
			return ((ConsumptionProbe) answer).isConsumed();
		}

	}

	/**
	 * As {@code Bucket4jRateLimiter.isAllowed}: a proxy built per request from the
	 * configuration supplier, keyed by the resolved key.
	 */
	private static final class Bucket4jScg implements KeyedLimiter {

		private final AsyncProxyManager<String> proxyManager;

		private final Supplier<CompletableFuture<BucketConfiguration>> configuration;

		Bucket4jScg(Bandwidth bandwidth, long maximumKeys) {
			this.proxyManager = Bucket4jCaffeine.<String>builderFor(Caffeine.newBuilder().maximumSize(maximumKeys))
				.build()
				.asAsync();
			BucketConfiguration bucketConfiguration = BucketConfiguration.builder().addLimit(bandwidth).build();
			this.configuration = () -> CompletableFuture.completedFuture(bucketConfiguration);
		}

		@Override
		public Object acquire(BucketId id) {
			return this.proxyManager.builder().build(id.key(), this.configuration).tryConsumeAndReturnRemaining(1);
		}

		@Override
		public boolean admitted(Object answer) {
			return ((CompletableFuture<?>) answer).thenApply(ConsumptionProbe.class::cast).join().isConsumed();
		}

	}

	private static final class GuavaPerKey implements KeyedLimiter {

		private final Cache<BucketId, RateLimiter> limiters;

		private final double permitsPerSecond;

		GuavaPerKey(Quota quota, long maximumKeys) {
			this.limiters = cache(maximumKeys);
			this.permitsPerSecond = ((quota == Quota.EXHAUSTED) ? 1.0 : UNLIMITED) / HOUR.toSeconds();
		}

		@Override
		public Object acquire(BucketId id) {
			RateLimiter limiter = this.limiters.getIfPresent(id);
			if (limiter == null) {
				limiter = this.limiters.get(id, (newId) -> RateLimiter.create(this.permitsPerSecond));
			}
			return limiter.tryAcquire(1, 0, TimeUnit.NANOSECONDS);
		}

		@Override
		public boolean admitted(Object answer) {
			return (Boolean) answer;
		}

	}

	private static final class Resilience4jPerKey implements KeyedLimiter {

		private final Cache<BucketId, AtomicRateLimiter> limiters;

		private final RateLimiterConfig config;

		Resilience4jPerKey(Quota quota, long maximumKeys) {
			this.limiters = cache(maximumKeys);
			this.config = (quota == Quota.EXHAUSTED)
					? RateLimiterConfig.custom()
						.limitForPeriod(1)
						.limitRefreshPeriod(HOUR)
						.timeoutDuration(Duration.ZERO)
						.build()
					: RateLimiterConfig.custom()
						.limitForPeriod(Integer.MAX_VALUE)
						.limitRefreshPeriod(Duration.ofSeconds(1))
						.timeoutDuration(Duration.ZERO)
						.build();
		}

		@Override
		public Object acquire(BucketId id) {
			AtomicRateLimiter limiter = this.limiters.getIfPresent(id);
			if (limiter == null) {
				limiter = this.limiters.get(id, (newId) -> new AtomicRateLimiter(newId.key(), this.config));
			}
			return limiter.acquirePermission();
		}

		@Override
		public boolean admitted(Object answer) {
			return (Boolean) answer;
		}

	}

}
