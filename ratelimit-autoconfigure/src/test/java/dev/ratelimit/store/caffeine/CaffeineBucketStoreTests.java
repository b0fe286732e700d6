package dev.ratelimit.store.caffeine;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.LimitSnapshot;
import dev.ratelimit.store.StoreHealth;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.testsupport.Concurrently;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.within;

class CaffeineBucketStoreTests {

	private static final long SECOND = 1_000_000_000L;

	private static final long MILLI = 1_000_000L;

	private final AtomicLong time = new AtomicLong(5 * SECOND);

	private final Tier anonymous = new Tier("anonymous", List.of(new FixedWindow(2, Duration.ofSeconds(10))));

	private final Tier pro = new Tier("pro",
			List.of(new TokenBucket(5, 1, Duration.ofSeconds(1)), new SlidingWindowCounter(100, Duration.ofMinutes(1))));

	private final RateLimitPolicy orders = policy("orders");

	private final CaffeineBucketStore store = new CaffeineBucketStore(this.time::get, 1000, Runnable::run);

	@Test
	void nameIsCaffeine() {
		assertThat(this.store.name()).isEqualTo("caffeine");
	}

	@Test
	void judgesEachBucketSeparately() {
		BucketId alice = new BucketId("orders", "anonymous", "alice");
		BucketId bob = new BucketId("orders", "anonymous", "bob");
		assertThat(acquire(alice, this.anonymous).allowed()).isTrue();
		assertThat(acquire(alice, this.anonymous).allowed()).isTrue();
		Verdict rejected = acquire(alice, this.anonymous);
		assertThat(rejected.allowed()).isFalse();
		assertThat(rejected.retryAfterNanos()).isEqualTo(5 * SECOND);
		assertThat(acquire(bob, this.anonymous).allowed()).isTrue();
	}

	@Test
	void keysOfEveryShapeHaveBucketsOfTheirOwn() {
		// One-word addresses, two-word keys, strings, and keys alike in their low bytes.
		List<String> keys = List.of("203.0.113.7", "203.0.113.70", "::1", "alice", "client-200000", "A", "\u0141",
				"abcdefghijklmnopq", "ключ", "a\u0000");
		for (String key : keys) {
			assertThat(acquire(new BucketId("orders", "anonymous", key), this.anonymous).reported().remaining())
				.as(key)
				.isEqualTo(1);
		}
		for (String key : keys) {
			assertThat(acquire(new BucketId("orders", "anonymous", key), this.anonymous).reported().remaining())
				.as(key)
				.isZero();
			assertThat(this.store.bucket(this.orders, key).blockFirst().requests()).as(key).isEqualTo(2);
		}
		assertThat(this.store.buckets(this.orders).map((snapshot) -> snapshot.id().key()).collectList().block())
			.containsExactlyInAnyOrderElementsOf(keys);
		assertThat(this.store.bucketCount(this.orders).block()).isEqualTo(keys.size());
	}

	static List<Limit> limitsOfOneHundred() {
		Duration hour = Duration.ofHours(1);
		return List.of(new FixedWindow(100, hour), new SlidingWindowLog(100, hour), new SlidingWindowCounter(100, hour),
				new TokenBucket(100, 1, hour), new LeakyBucket(100, 1, hour));
	}

	@ParameterizedTest
	@MethodSource("limitsOfOneHundred")
	void manyThreadsOnOneKeyAdmitExactlyTheLimit(Limit limit) throws Exception {
		CaffeineBucketStore store = new CaffeineBucketStore(() -> 42, 1000);
		Tier tier = new Tier("anonymous", List.of(limit));
		BucketId id = new BucketId("orders", "anonymous", "hot");
		List<Integer> admitted = Concurrently.call(16, (thread) -> {
			int count = 0;
			for (int i = 0; i < 50; i++) {
				if (store.acquire(id, tier, 1).block().allowed()) {
					count++;
				}
			}
			return count;
		});
		assertThat(admitted.stream().mapToInt(Integer::intValue).sum()).isEqualTo(100);
	}

	@Test
	void threadsOnOneKeyNeverAdmitMoreThanTheTokensAndEveryRequestIsCounted() throws Exception {
		AtomicLong clock = new AtomicLong(SECOND);
		// Time moves a nanosecond a reading: a refill of 1 token an hour adds nothing.
		CaffeineBucketStore store = new CaffeineBucketStore(clock::incrementAndGet, 1000);
		Tier tier = new Tier("anonymous", List.of(new TokenBucket(1000, 1, Duration.ofHours(1))));
		BucketId id = new BucketId("orders", "anonymous", "203.0.113.7");
		List<Integer> admitted = Concurrently.call(8, (thread) -> {
			int count = 0;
			for (int i = 0; i < 2_000; i++) {
				if (store.acquireNow(id, tier, 1).allowed()) {
					count++;
				}
			}
			return count;
		});
		assertThat(admitted.stream().mapToInt(Integer::intValue).sum()).isEqualTo(1000);
		RateLimitPolicy policy = new RateLimitPolicy("orders", new KeySource.ClientIp(), false, 1, StoreType.CAFFEINE,
				Map.of("anonymous", tier), tier);
		// The count is incremented under the bucket's lock without any atomic of its own.
		assertThat(store.bucket(policy, "203.0.113.7").blockFirst().requests()).isEqualTo(8 * 2_000);
	}

	@Test
	void aDecisionThatFailsReleasesItsBucketsLock() throws Exception {
		AtomicBoolean failing = new AtomicBoolean();
		// Only the store's own reading, taken under the bucket's lock, fails; the cache's
		// readings of the same clock do not.
		MonotonicClock clock = () -> {
			if (failing.get() && StackWalker.getInstance()
				.walk((frames) -> frames.skip(1).findFirst())
				.map((caller) -> caller.getMethodName().equals("acquireNow"))
				.orElse(false)) {
				throw new IllegalStateException("clock failed");
			}
			return 5 * SECOND;
		};
		CaffeineBucketStore store = new CaffeineBucketStore(clock, 1000, Runnable::run);
		BucketId alice = new BucketId("orders", "anonymous", "alice");
		assertThat(store.acquireNow(alice, this.anonymous, 1).allowed()).isTrue();
		failing.set(true);
		assertThatIllegalStateException().isThrownBy(() -> store.acquireNow(alice, this.anonymous, 1))
			.withMessage("clock failed");
		failing.set(false);
		// On another thread, so that a lock left held fails the test instead of hanging it.
		List<Verdict> next = Concurrently.call(1, (thread) -> store.acquireNow(alice, this.anonymous, 1));
		assertThat(next.get(0).allowed()).isTrue();
		assertThat(store.acquireNow(alice, this.anonymous, 1).allowed()).isFalse();
	}

	@Test
	void idleBucketExpiresAfterItsTiersIdleTimeout() {
		BucketId id = new BucketId("orders", "pro", "alice");
		acquire(id, this.pro);
		acquire(id, this.pro);
		// pro's longest idle timeout is the sliding window counter's two minutes, and the
		// cache keeps a bucket a second beyond, its expiry tolerance
		this.time.addAndGet(2 * 60 * SECOND + SECOND - 1);
		assertThat(this.store.bucket(this.orders, "alice").collectList().block()).hasSize(1);
		assertThat(this.store.bucketCount(this.orders).block()).isEqualTo(1);
		this.time.addAndGet(1);
		assertThat(this.store.bucket(this.orders, "alice").collectList().block()).isEmpty();
		assertThat(this.store.buckets(this.orders).collectList().block()).isEmpty();
		// Caffeine's timer wheel sweeps expired entries in ticks of about a second.
		this.time.addAndGet(2 * SECOND);
		assertThat(this.store.bucketCount(this.orders).block()).isZero();
		acquire(id, this.pro);
		assertThat(this.store.bucket(this.orders, "alice").blockFirst().requests()).isEqualTo(1);
	}

	/**
	 * Caffeine leaves an entry's expiry where it was when a use moves it by less than a
	 * second: a bucket used again half a second on must still outlive its state.
	 */
	@Test
	void aBucketUsedAgainWithinASecondLivesAsLongAsItsStateCounts() {
		Tier queue = new Tier("anonymous", List.of(new LeakyBucket(5, 3, Duration.ofSeconds(1))));
		BucketId id = new BucketId("orders", "anonymous", "carol");
		for (int i = 0; i < 5; i++) {
			this.store.acquireNow(id, queue, 1);
		}
		this.time.addAndGet(SECOND / 2);
		this.store.acquireNow(id, queue, 1);
		// 1.3 s after its last use, 0.6 of the queue has not drained yet: room for 4, not 5.
		this.time.addAndGet(1300 * MILLI);
		for (int i = 0; i < 4; i++) {
			assertThat(this.store.acquireNow(id, queue, 1).allowed()).isTrue();
		}
		assertThat(this.store.acquireNow(id, queue, 1).allowed()).isFalse();
	}

	@Test
	void judgingKeepsABucketAlive() {
		BucketId id = new BucketId("orders", "anonymous", "alice");
		for (int i = 0; i < 5; i++) {
			acquire(id, this.anonymous);
			this.time.addAndGet(9 * SECOND);
		}
		assertThat(this.store.bucket(this.orders, "alice").blockFirst().requests()).isEqualTo(5);
	}

	@Test
	void holdsAtMostMaximumKeys() {
		CaffeineBucketStore store = new CaffeineBucketStore(this.time::get, 50, Runnable::run);
		for (int i = 0; i < 500; i++) {
			store.acquire(new BucketId("orders", "anonymous", "client-" + i), this.anonymous, 1).block();
		}
		long count = store.bucketCount(this.orders).block();
		assertThat(count).isLessThanOrEqualTo(50);
		assertThat(store.buckets(this.orders).count().block()).isEqualTo(count);
		assertThat(store.health().details()).containsEntry("buckets", count).containsEntry("maximumKeys", 50L);
	}

	@Test
	void resetForgetsEveryTierOfTheKey() {
		acquire(new BucketId("orders", "anonymous", "alice"), this.anonymous);
		acquire(new BucketId("orders", "anonymous", "alice"), this.anonymous);
		acquire(new BucketId("orders", "pro", "alice"), this.pro);
		acquire(new BucketId("orders", "anonymous", "bob"), this.anonymous);
		assertThat(this.store.reset(this.orders, "alice").block()).isTrue();
		assertThat(this.store.bucket(this.orders, "alice").collectList().block()).isEmpty();
		assertThat(this.store.bucketCount(this.orders).block()).isEqualTo(1);
		assertThat(acquire(new BucketId("orders", "anonymous", "alice"), this.anonymous).reported().remaining())
			.isEqualTo(1);
		assertThat(this.store.reset(this.orders, "nobody").block()).isFalse();
	}

	@Test
	void readSideShowsEachLimitOfABucket() {
		BucketId id = new BucketId("orders", "pro", "alice");
		acquire(id, this.pro);
		acquire(id, this.pro);
		acquire(id, this.pro);
		this.time.addAndGet(SECOND / 2);
		BucketSnapshot snapshot = this.store.bucket(this.orders, "alice").blockFirst();
		assertThat(snapshot.id()).isEqualTo(id);
		assertThat(snapshot.requests()).isEqualTo(3);
		assertThat(snapshot.limits()).hasSize(2);
		LimitSnapshot tokens = snapshot.limits().get(0);
		assertThat(tokens.algorithm()).isEqualTo("token-bucket");
		assertThat(tokens.limit()).isEqualTo(5);
		assertThat(tokens.remaining()).isEqualTo(2);
		// Half a token until the third: the next unit, not a full bucket.
		assertThat(tokens.resetSeconds()).isEqualTo(1);
		assertThat(tokens.state()).isEqualTo(Map.of("tokens", 2.5));
		LimitSnapshot counter = snapshot.limits().get(1);
		assertThat(counter.algorithm()).isEqualTo("sliding-window-counter");
		assertThat(counter.remaining()).isEqualTo(97);
		assertThat(counter.state()).containsEntry("current", 3L).containsEntry("previous", 0L);
	}

	@Test
	void listingWalksOnlyThePolicysBuckets() {
		acquire(new BucketId("orders", "anonymous", "alice"), this.anonymous);
		acquire(new BucketId("orders", "pro", "bob"), this.pro);
		acquire(new BucketId("search", "anonymous", "carol"), this.anonymous);
		assertThat(this.store.buckets(this.orders).map((snapshot) -> snapshot.id().key()).collectList().block())
			.containsExactlyInAnyOrder("alice", "bob");
		assertThat(this.store.bucketCount(this.orders).block()).isEqualTo(2);
		assertThat(this.store.bucketCount(policy("search")).block()).isEqualTo(1);
		assertThat(this.store.bucketCount(policy("unused")).block()).isZero();
	}

	@Test
	void lookingAtABucketDoesNotKeepItAlive() {
		BucketId id = new BucketId("orders", "anonymous", "alice");
		acquire(id, this.anonymous);
		this.time.addAndGet(9 * SECOND);
		assertThat(this.store.bucket(this.orders, "alice").collectList().block()).hasSize(1);
		// Its 10 s window, and the cache's second of expiry tolerance.
		this.time.addAndGet(2 * SECOND);
		assertThat(this.store.bucket(this.orders, "alice").collectList().block()).isEmpty();
	}

	@Test
	void aDaysWindowResetsAtMidnightUtc() {
		Instant afternoon = Instant.parse("2026-03-14T15:09:26.535Z");
		AtomicLong clock = new AtomicLong(afternoon.getEpochSecond() * SECOND + afternoon.getNano());
		CaffeineBucketStore store = new CaffeineBucketStore(clock::get, 100, Runnable::run);
		Tier daily = new Tier("anonymous", List.of(new FixedWindow(2, Duration.ofDays(1)),
				new SlidingWindowCounter(2, Duration.ofDays(1))));
		BucketId id = new BucketId("orders", "anonymous", "alice");
		Verdict first = store.acquire(id, daily, 1).block();
		Duration untilMidnight = Duration.between(afternoon, Instant.parse("2026-03-15T00:00:00Z"));
		assertThat(first.decision(0).resetNanos()).isEqualTo(untilMidnight.toNanos());
		store.acquire(id, daily, 1).block();
		Verdict rejected = store.acquire(id, daily, 1).block();
		assertThat(rejected.decision(0).retryAfterNanos()).isEqualTo(untilMidnight.toNanos());
		// The counter's 2 weigh until half-way through tomorrow (to the few nanoseconds
		// its floating-point weighing rounds away).
		assertThat(rejected.decision(1).retryAfterNanos()).isCloseTo(untilMidnight.plusHours(12).toNanos(),
				within(1_000L));
		clock.addAndGet(untilMidnight.toNanos() - 1);
		assertThat(store.acquire(id, daily, 1).block().decision(0).allowed()).isFalse();
		clock.addAndGet(1);
		// The fixed window starts afresh at 00:00 UTC; the counter still weighs yesterday.
		Verdict afterMidnight = store.acquire(id, daily, 1).block();
		assertThat(afterMidnight.decision(0).allowed()).isTrue();
		assertThat(afterMidnight.decision(1).allowed()).isFalse();
	}

	@Test
	void healthIsUpWithItsSize() {
		acquire(new BucketId("orders", "anonymous", "alice"), this.anonymous);
		StoreHealth health = this.store.health();
		assertThat(health.up()).isTrue();
		assertThat(health.details()).containsEntry("store", "caffeine")
			.containsEntry("buckets", 1L)
			.containsEntry("maximumKeys", 1000L);
	}

	@Test
	void maximumKeysMustBePositive() {
		assertThatIllegalArgumentException().isThrownBy(() -> new CaffeineBucketStore(this.time::get, 0))
			.withMessage("maximum-keys must be positive but was 0");
	}

	private Verdict acquire(BucketId id, Tier tier) {
		return this.store.acquire(id, tier, 1).block();
	}

	private RateLimitPolicy policy(String id) {
		return new RateLimitPolicy(id, new KeySource.ClientIp(), false, 1, StoreType.CAFFEINE,
				Map.of("anonymous", this.anonymous, "pro", this.pro), this.anonymous);
	}

}
