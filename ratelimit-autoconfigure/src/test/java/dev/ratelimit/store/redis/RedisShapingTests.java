package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.LimitState;
import dev.ratelimit.algorithm.Shaping;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.LimitSnapshot;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.testsupport.TestPolicies;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * Shaping on a real Redis: the script holds requests as the Java algorithms do, on Redis
 * time, so that gateways sharing a Redis share one schedule; a held request's units are
 * given back; a failing give-back errors, and a failure mode never holds.
 * <p>
 * Redis time cannot be faked, and it moves while a test's calls run: a request judged
 * {@code elapsed} after the first of a burst is held that much less, and released at
 * the same instant. So each burst's span is read from Redis ({@code TIME} before and
 * after) and every expected delay holds within it; a span as long as one release
 * interval would make the comparison hold nothing, and fails the test instead.
 */
class RedisShapingTests {

	/**
	 * Generous, so that a slow test machine never turns a decision into a fallback.
	 */
	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	/**
	 * A Redis reply's delay is rounded up to the microsecond.
	 */
	private static final long ROUNDING_NANOS = 1_000;

	@RegisterExtension
	static final SharedRedis redis = new SharedRedis();

	private final OwnClients clients = new OwnClients();

	@AfterEach
	void closeClients() {
		this.clients.close();
	}

	/**
	 * The example: capacity 5 draining 2 a second, 8 at once: held 0, 0.5, 1.0,
	 * 1.5 and 2.0 seconds, 3 refused with the Retry-After of the Java algorithm.
	 */
	@Test
	void aLeakyQueueHoldsTheBurstAsTheJavaAlgorithm() {
		Limit queue = new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(3)));
		List<Decision> java = javaBurst(queue, 8);
		assertThat(java).extracting(Decision::delayNanos)
			.containsExactly(0L, 500_000_000L, 1_000_000_000L, 1_500_000_000L, 2_000_000_000L, 0L, 0L, 0L);
		assertThat(java).extracting(Decision::allowed).containsExactly(true, true, true, true, true, false, false,
				false);
		assertSameSchedule(queue, java, Duration.ofMillis(500));
	}

	/**
	 * Capacity 2 refilling 2 a second, holding up to a second: two pass, two wait for the
	 * tokens they reserve (0.5 and 1.0 seconds), the fifth would wait 1.5 and is refused;
	 * the tokens stand below zero.
	 */
	@Test
	void aTokenBucketReservesAsTheJavaAlgorithm() {
		Limit bucket = new TokenBucket(2, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(1)));
		List<Decision> java = javaBurst(bucket, 5);
		assertThat(java).extracting(Decision::delayNanos).containsExactly(0L, 0L, 500_000_000L, 1_000_000_000L, 0L);
		assertThat(java.get(4).retryAfterNanos()).isEqualTo(500_000_000L);
		long began = assertSameSchedule(bucket, java, Duration.ofMillis(500));
		RedisBucketStore store = store(redis.template(), FailureMode.DENY);
		double tokens = snapshot(store, bucket, "burst").state().get("tokens").doubleValue();
		long since = redisTimeNanos() - began;
		// Two reserved, less what refilled since the burst began, two a second.
		assertThat(tokens).isNegative().isBetween(-2.0, -2.0 + 2.0 * since / 1e9 + 0.001);
	}

	/**
	 * Two gateways, each on a client of its own, share one queue: their requests,
	 * interleaved, get distinct release instants one drain interval apart, as one
	 * gateway's would.
	 */
	@Test
	void twoGatewaysReleaseAtTheRateTogether() {
		int requests = 20;
		Duration interval = Duration.ofSeconds(1);
		Tier tier = TestPolicies.tier("free",
				new LeakyBucket(requests, 1, interval, new Shaping(Duration.ofSeconds(requests))));
		RedisBucketStore first = store(redis.get().nodeTemplate(), FailureMode.DENY);
		RedisBucketStore second = store(redis.get().nodeTemplate(), FailureMode.DENY);
		BucketId id = new BucketId("orders", "free", "shared");
		long before = redisTimeNanos();
		List<Verdict> verdicts = Flux.range(0, requests)
			.flatMap((i) -> ((i % 2 == 0) ? first : second).acquire(id, tier, 1), 8)
			.collectList()
			.block();
		long span = redisTimeNanos() - before;
		assertThat(span).as("Redis time the burst took, within which the delays hold").isLessThan(interval.toNanos());
		assertThat(verdicts).allMatch(Verdict::allowed).noneMatch(Verdict::fallback);
		List<Long> delays = verdicts.stream().map(Verdict::delayNanos).sorted().toList();
		assertThat(delays.get(0)).isZero();
		// Request k is released at its decision plus its delay: k intervals after the first
		// request's decision, so its delay is that less the Redis time since (at most the span).
		for (int k = 0; k < requests; k++) {
			assertThat(delays.get(k)).as("delay of request %d, in the order judged", k)
				.isBetween(k * interval.toNanos() - span, k * interval.toNanos() + ROUNDING_NANOS);
		}
		for (int k = 1; k < requests; k++) {
			assertThat(delays.get(k) - delays.get(k - 1)).as("interval between releases %d and %d", k - 1, k)
				.isGreaterThan(interval.toNanos() - span - ROUNDING_NANOS)
				.isLessThanOrEqualTo(interval.toNanos() + ROUNDING_NANOS);
		}
	}

	/**
	 * Six held, two given back: the queue holds the four forwarded, the requests judged
	 * are still six, and the next request waits behind four rather than six.
	 */
	@Test
	void aGiveBackReturnsTheQueuesPlace() {
		Duration hour = Duration.ofHours(1);
		Limit queue = new LeakyBucket(10, 1, hour, new Shaping(Duration.ofHours(10)));
		Tier tier = TestPolicies.tier("free", queue);
		RedisBucketStore store = store(redis.template(), FailureMode.DENY);
		BucketId id = new BucketId("orders", "free", "client");
		for (int i = 0; i < 6; i++) {
			assertThat(store.acquire(id, tier, 1).block().allowed()).isTrue();
		}
		store.settle(id, tier, Settlement.neverForwarded(1, 0)).block();
		store.settle(id, tier, Settlement.neverForwarded(1, Duration.ofMillis(5).toNanos())).block();
		LimitSnapshot snapshot = snapshot(store, queue, "client");
		// One an hour: a test's seconds drain nothing worth counting.
		assertThat(snapshot.state().get("level").doubleValue()).isCloseTo(4.0, within(0.01));
		assertThat(snapshot.state().get("hold").doubleValue()).isCloseTo(4 * 3600.0, within(10.0));
		assertThat(store.bucket(policy(tier), "client").blockFirst().requests()).isEqualTo(6);
		assertThat(Duration.ofNanos(store.acquire(id, tier, 1).block().delayNanos()))
			.isBetween(hour.multipliedBy(4).minusMinutes(1), hour.multipliedBy(4));
	}

	/**
	 * A tier that shapes with a token bucket and meters with windows: a give-back returns
	 * the units to every limit.
	 */
	@Test
	void aGiveBackReturnsTheUnitsToEveryLimitOfTheTier() {
		Duration hour = Duration.ofHours(1);
		Tier tier = TestPolicies.tier("free", new TokenBucket(3, 1, hour, new Shaping(Duration.ofHours(10))),
				new FixedWindow(100, Duration.ofDays(1)), new SlidingWindowLog(100, hour));
		RedisBucketStore store = store(redis.template(), FailureMode.DENY);
		BucketId id = new BucketId("orders", "free", "client");
		for (int i = 0; i < 5; i++) {
			assertThat(store.acquire(id, tier, 1).block().allowed()).isTrue();
		}
		store.settle(id, tier, Settlement.neverForwarded(2, 0)).block();
		List<LimitSnapshot> limits = store.bucket(policy(tier), "client").blockFirst().limits();
		assertThat(limits.get(0).state().get("tokens").doubleValue()).isCloseTo(0.0, within(0.01));
		assertThat(limits.get(1).state()).containsEntry("count", 3L);
		assertThat(limits.get(2).state()).containsEntry("logSize", 3L);
	}

	@Test
	void aGiveBackCreatesNoBucket() {
		Tier tier = TestPolicies.tier("free", new LeakyBucket(5, 2, Duration.ofSeconds(1),
				new Shaping(Duration.ofSeconds(3))), new SlidingWindowLog(5, Duration.ofMinutes(1)));
		RedisBucketStore store = store(redis.template(), FailureMode.DENY);
		store.settle(new BucketId("orders", "free", "nobody"), tier, Settlement.neverForwarded(1, 0)).block();
		RedisLayout layout = new RedisLayout("rl", "orders", tier);
		assertThat(redis.template().countExistingKeys(layout.keys("nobody")).block()).isZero();
	}

	/**
	 * Redis stops answering: a give-back times out with an error counted against the
	 * breaker, not as a fallback; once the breaker is open it errors without calling
	 * Redis; and the failure mode that decides meanwhile holds no request: what the local
	 * store it decides on would hold is refused until it would have been released.
	 */
	@Test
	void aGiveBackWhileRedisIsDownErrorsAndTheFailureModeHoldsNothing() {
		Tier tier = TestPolicies.tier("free",
				new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(3))));
		BucketId id = new BucketId("orders", "free", "client");
		try (TestRedis own = TestRedis.startEmbedded(); StallingProxy proxy = new StallingProxy(own.port())) {
			RemoteFailureGuard guard = TestStores.guard("redis", FailureMode.LOCAL, 1, Duration.ofMinutes(1));
			RedisBucketStore store = TestStores.redis(this.clients.template(proxy.port()), Duration.ofMillis(250),
					guard);
			proxy.stall();
			assertThatThrownBy(() -> store.settle(id, tier, Settlement.neverForwarded(1, 0)).block()).hasCauseInstanceOf(TimeoutException.class);
			assertThat(guard.healthDetails()).containsEntry("circuitBreaker", "open").containsEntry("fallbacks", 0L);
			assertThatThrownBy(() -> store.settle(id, tier, Settlement.neverForwarded(1, 0)).block()).isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("circuit breaker is open");
			Verdict first = store.acquire(id, tier, 1).block();
			Verdict second = store.acquire(id, tier, 1).block();
			Verdict third = store.acquire(id, tier, 1).block();
			assertThat(List.of(first, second, third)).allMatch(Verdict::fallback)
				.allMatch((verdict) -> verdict.delayNanos() == 0);
			assertThat(first.allowed()).isTrue();
			// The local queue would hold the second half a second: it meters instead, refused
			// until then, its place given back, so the third is refused the same way.
			assertThat(second.allowed()).isFalse();
			assertThat(second.retryAfterNanos()).isBetween(400_000_000L, 500_000_000L);
			assertThat(third.allowed()).isFalse();
			assertThat(third.retryAfterNanos()).isBetween(400_000_000L, 500_000_000L);
		}
	}

	/**
	 * The Java algorithm's decisions on a burst of {@code requests} at one instant.
	 */
	private static List<Decision> javaBurst(Limit limit, int requests) {
		LimitState state = limit.newState(0);
		List<Decision> decisions = new ArrayList<>();
		for (int i = 0; i < requests; i++) {
			Decision decision = state.probe(0, 1);
			if (decision.allowed()) {
				state.commit(0, 1);
			}
			decisions.add(decision);
		}
		return decisions;
	}

	/**
	 * The same burst on the Redis store, one request after the other: each is admitted or
	 * refused as in Java, its delay and retry-after Java's less the Redis time since the
	 * burst began. A refusal after Redis's first is this node's repeat of it
	 * ({@link RefusedUntil}), its retry-after counted on this node's clock from when the
	 * refused call was sent, before Redis decided: shorter by up to this node's time
	 * around the burst.
	 * @param interval the shortest time in which the limit lets a unit go, which the
	 * burst must take less than
	 * @return the Redis time the burst began, in nanoseconds
	 */
	private long assertSameSchedule(Limit limit, List<Decision> java, Duration interval) {
		Tier tier = TestPolicies.tier("free", limit);
		RedisBucketStore store = store(redis.template(), FailureMode.DENY);
		BucketId id = new BucketId("orders", "free", "burst");
		long before = redisTimeNanos();
		long localBefore = System.nanoTime();
		List<Verdict> verdicts = new ArrayList<>();
		for (int i = 0; i < java.size(); i++) {
			verdicts.add(store.acquire(id, tier, 1).block());
		}
		long localSpan = System.nanoTime() - localBefore;
		long span = redisTimeNanos() - before;
		assertThat(span).as("Redis time the burst took, within which the schedule holds")
			.isLessThan(interval.toNanos());
		for (int i = 0; i < java.size(); i++) {
			Decision expected = java.get(i);
			Verdict actual = verdicts.get(i);
			assertThat(actual.fallback()).isFalse();
			assertThat(actual.allowed()).as("request %d admitted", i).isEqualTo(expected.allowed());
			assertThat(actual.delayNanos()).as("request %d's delay", i)
				.isBetween(expected.delayNanos() - span, expected.delayNanos() + ROUNDING_NANOS);
			assertThat(actual.retryAfterNanos()).as("request %d's retry-after", i)
				.isBetween(expected.retryAfterNanos() - span - localSpan, expected.retryAfterNanos() + ROUNDING_NANOS);
		}
		return before;
	}

	private static LimitSnapshot snapshot(RedisBucketStore store, Limit limit, String key) {
		return store.bucket(policy(TestPolicies.tier("free", limit)), key).blockFirst().limits().get(0);
	}

	private static RateLimitPolicy policy(Tier tier) {
		return TestPolicies.policy("orders", StoreType.REDIS, tier);
	}

	private static RedisBucketStore store(ReactiveStringRedisTemplate template, FailureMode mode) {
		return TestStores.redis(template, TIMEOUT, TestStores.guard("redis", mode, 5, Duration.ofSeconds(1)));
	}

	private static long redisTimeNanos() {
		return redis.template()
			.execute((connection) -> connection.serverCommands().time(TimeUnit.MICROSECONDS))
			.map(Number.class::cast)
			.blockFirst()
			.longValue() * 1_000;
	}

}
