package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Shaping;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.testsupport.TestPolicies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;

import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedisBucketStore} on a real Redis: the same decisions as the local store,
 * exact under concurrency from several nodes, and the read side.
 */
class RedisBucketStoreTests {

	/**
	 * Generous, so that a slow test machine never turns a decision into a fallback.
	 */
	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	@RegisterExtension
	static final SharedRedis redis = new SharedRedis();

	@Test
	void fixedWindowDecidesAsTheLocalStore() {
		assertSameDecisions(TestPolicies.tier("free", new FixedWindow(7, Duration.ofDays(1))));
	}

	@Test
	void slidingWindowLogDecidesAsTheLocalStore() {
		assertSameDecisions(TestPolicies.tier("free", new SlidingWindowLog(7, Duration.ofHours(1))));
	}

	@Test
	void slidingWindowCounterDecidesAsTheLocalStore() {
		assertSameDecisions(TestPolicies.tier("free", new SlidingWindowCounter(7, Duration.ofDays(1))));
	}

	@Test
	void tokenBucketDecidesAsTheLocalStore() {
		assertSameDecisions(TestPolicies.tier("free", new TokenBucket(7, 1, Duration.ofHours(1))));
	}

	@Test
	void leakyBucketDecidesAsTheLocalStore() {
		assertSameDecisions(TestPolicies.tier("free", new LeakyBucket(7, 1, Duration.ofHours(1))));
	}

	@Test
	void shapingLeakyBucketHoldsAsTheLocalStore() {
		assertThat(assertSameDecisions(TestPolicies.tier("free",
				new LeakyBucket(7, 1, Duration.ofHours(1), new Shaping(Duration.ofHours(4), 2)))))
			.anyMatch((line) -> !line.contains("held=0min"));
	}

	@Test
	void shapingTokenBucketReservesAsTheLocalStore() {
		assertThat(assertSameDecisions(TestPolicies.tier("free",
				new TokenBucket(4, 1, Duration.ofHours(1), new Shaping(Duration.ofHours(5))))))
			.anyMatch((line) -> !line.contains("held=0min"));
	}

	@Test
	void tierOfSeveralLimitsDecidesAsTheLocalStore() {
		assertSameDecisions(TestPolicies.tier("free", new TokenBucket(9, 1, Duration.ofHours(1)),
				new FixedWindow(6, Duration.ofDays(1)), new SlidingWindowLog(8, Duration.ofHours(1)),
				new LeakyBucket(10, 1, Duration.ofHours(1))));
	}

	@Test
	void concurrentCallersFromTwoNodesAdmitExactlyTheLimit() {
		Tier tier = TestPolicies.tier("free", new FixedWindow(100, Duration.ofDays(1)));
		RedisBucketStore first = store(FailureMode.DENY);
		RedisBucketStore second = store(FailureMode.DENY);
		BucketId id = new BucketId("orders", "free", "hot");
		List<Verdict> verdicts = Flux.range(0, 400)
			.flatMap((i) -> ((i % 2 == 0) ? first : second).acquire(id, tier, 1), 64)
			.collectList()
			.block();
		assertThat(verdicts).noneMatch(Verdict::fallback);
		assertThat(verdicts).filteredOn(Verdict::allowed).hasSize(100);
	}

	@Test
	void readSideListsReadsAndResetsBuckets() {
		Tier tier = TestPolicies.tier("free", new TokenBucket(5, 1, Duration.ofHours(1)));
		RateLimitPolicy policy = TestPolicies.policy("orders", StoreType.REDIS, tier);
		RedisBucketStore store = store(FailureMode.DENY);
		for (int i = 0; i < 30; i++) {
			store.acquire(new BucketId("orders", "free", "client-" + (i % 10)), tier, 1).block();
		}
		store.acquire(new BucketId("other", "free", "client-0"), tier, 1).block();
		assertThat(store.bucketCount(policy).block()).isEqualTo(10);
		assertThat(store.buckets(policy).collectList().block()).hasSize(10)
			.allSatisfy((bucket) -> assertThat(bucket.requests()).isEqualTo(3));
		BucketSnapshot one = store.bucket(policy, "client-3").blockFirst();
		assertThat(one.id()).isEqualTo(new BucketId("orders", "free", "client-3"));
		assertThat(one.limits().get(0).remaining()).isEqualTo(2);
		assertThat(store.reset(policy, "client-3").block()).isTrue();
		assertThat(store.bucket(policy, "client-3").collectList().block()).isEmpty();
		assertThat(store.reset(policy, "client-3").block()).isFalse();
		assertThat(store.acquire(new BucketId("orders", "free", "client-3"), tier, 1).block().reported().remaining())
			.isEqualTo(4);
	}

	@Test
	void scriptIsSentAgainWhenRedisForgotIt() {
		Tier tier = TestPolicies.tier("free", new FixedWindow(5, Duration.ofDays(1)));
		RedisBucketStore store = store(FailureMode.DENY);
		BucketId id = new BucketId("orders", "free", "client");
		store.acquire(id, tier, 1).block();
		redis.template().execute((connection) -> connection.scriptingCommands().scriptFlush()).blockLast();
		Verdict verdict = store.acquire(id, tier, 1).block();
		assertThat(verdict.fallback()).isFalse();
		assertThat(verdict.reported().remaining()).isEqualTo(3);
		// A tier of one fixed window: its acquire calls take the lean script.
		String sha = RedisScript.of(ScriptAssembler.lean(TestLeanLimits.of(tier.limits().get(0))), List.class)
			.getSha1();
		assertThat(redis.template()
			.execute((connection) -> connection.scriptingCommands().scriptExists(sha))
			.blockFirst()).isTrue();
	}

	@Test
	void healthIsUpWhileRedisAnswers() {
		RedisBucketStore store = store(FailureMode.ALLOW);
		store.acquire(new BucketId("orders", "free", "a"), TestPolicies.tier("free", new FixedWindow(1,
				Duration.ofDays(1))), 1).block();
		assertThat(store.health().up()).isTrue();
		assertThat(store.health().details()).containsEntry("store", "redis")
			.containsEntry("remote", "UP")
			.containsEntry("failureMode", "allow")
			.containsEntry("circuitBreaker", "closed");
		// Each health check sends a PING in the background; a later one shows its latency.
		Pause.untilRecovered("a PING's latency in health",
				() -> store.health().details().get("pingMicros") instanceof Long);
	}

	/**
	 * A seeded random sequence of costs against both stores: every verdict agrees on
	 * admission, the reported limit, its remaining units and the delay, to the minute.
	 * Rates are slow enough that the test's real elapsed time never refills a unit nor
	 * moves a delay by half a minute.
	 * @return the verdicts, described
	 */
	private static List<String> assertSameDecisions(Tier tier) {
		BucketId id = new BucketId("orders", tier.name(), "client");
		CaffeineBucketStore local = new CaffeineBucketStore(MonotonicClock.SYSTEM, 100);
		RedisBucketStore remote = store(FailureMode.DENY);
		Random random = new Random(42);
		List<String> expected = new ArrayList<>();
		List<String> actual = new ArrayList<>();
		for (int step = 0; step < 40; step++) {
			long cost = 1 + random.nextInt(3);
			expected.add(step + ": " + describe(local.acquire(id, tier, cost).block()));
			actual.add(step + ": " + describe(remote.acquire(id, tier, cost).block()));
		}
		assertThat(actual).containsExactlyElementsOf(expected);
		assertThat(expected).anyMatch((line) -> line.contains("rejected"));
		return expected;
	}

	/**
	 * The verdict and every limit's decision, in the order they are reported.
	 */
	private static String describe(Verdict verdict) {
		assertThat(verdict.fallback()).isFalse();
		StringBuilder description = new StringBuilder(verdict.allowed() ? "allowed" : "rejected")
			.append(" held=").append(Math.round(verdict.delayNanos() / 60e9)).append("min");
		for (int index : verdict.reportOrder()) {
			Decision decision = verdict.decision(index);
			description.append(" limit#").append(index).append(decision.allowed() ? " admits" : " rejects")
				.append(" remaining=").append(decision.remaining()).append('/').append(decision.limit());
		}
		return description.toString();
	}

	private static RedisBucketStore store(FailureMode failureMode) {
		return TestStores.redis(redis.template(), TIMEOUT,
				TestStores.guard("redis", failureMode, 5, Duration.ofSeconds(1)));
	}

}
