package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.LimitSnapshot;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Each algorithm's Lua script against the algorithms' worked examples (docs/algorithms.md), on a real Redis.
 * Redis time cannot be faked, so each scenario either finishes well within its
 * window or refill period, or sleeps and asserts only what any sleep of at least that
 * long implies.
 */
class RedisAlgorithmScriptTests {

	@RegisterExtension
	static final SharedRedis redis = new SharedRedis();

	private BucketScript script;

	@BeforeEach
	void createScript() {
		this.script = new BucketScript(redis.template(), "rl");
	}

	@Test
	void fixedWindowAdmitsOneHundredThenRejectsTheHundredAndFirst() {
		RedisLayout layout = layout(new FixedWindow(100, Duration.ofDays(1)));
		for (int i = 1; i <= 100; i++) {
			Decision decision = acquire(layout, "client", 1);
			assertThat(decision.allowed()).as("request %d", i).isTrue();
			assertThat(decision.remaining()).isEqualTo(100 - i);
		}
		Decision rejected = acquire(layout, "client", 1);
		assertThat(rejected.allowed()).isFalse();
		assertThat(rejected.remaining()).isZero();
		assertThat(rejected.retryAfterNanos()).isEqualTo(rejected.resetNanos()).isPositive()
			.isLessThanOrEqualTo(Duration.ofDays(1).toNanos());
	}

	@Test
	void fixedWindowCountsEveryUnitOfACost() {
		RedisLayout layout = layout(new FixedWindow(10, Duration.ofDays(1)));
		assertThat(acquire(layout, "client", 7).remaining()).isEqualTo(3);
		Decision tooBig = acquire(layout, "client", 4);
		assertThat(tooBig.allowed()).isFalse();
		assertThat(tooBig.remaining()).isEqualTo(3);
		assertThat(acquire(layout, "client", 3).remaining()).isZero();
	}

	@Test
	void fixedWindowStartsAfreshInTheNextWindow() throws InterruptedException {
		RedisLayout layout = layout(new FixedWindow(2, Duration.ofMillis(300)));
		acquire(layout, "client", 2);
		Decision rejected = acquire(layout, "client", 1);
		assertThat(rejected.allowed()).isFalse();
		Thread.sleep(Duration.ofNanos(rejected.retryAfterNanos()).toMillis() + 20);
		assertThat(acquire(layout, "client", 1).allowed()).isTrue();
	}

	@Test
	void tokenBucketOfTenAtTwoPerSecondAdmitsTwoOfThreeAfterOneSecond() throws InterruptedException {
		// The worked example: 10 requests empty the bucket; one second later 2 tokens are back,
		// so of 3 requests 2 pass and 1 is rejected.
		RedisLayout layout = layout(new TokenBucket(10, 2, Duration.ofSeconds(1)));
		for (int i = 0; i < 10; i++) {
			assertThat(acquire(layout, "client", 1).allowed()).isTrue();
		}
		Decision empty = acquire(layout, "client", 1);
		assertThat(empty.allowed()).isFalse();
		assertThat(empty.retryAfterNanos()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(500).toNanos());
		Thread.sleep(1000);
		assertThat(acquire(layout, "client", 1).allowed()).isTrue();
		assertThat(acquire(layout, "client", 1).allowed()).isTrue();
		// Passes as long as the test took less than 500ms more than its sleeps.
		assertThat(acquire(layout, "client", 1).allowed()).isFalse();
	}

	@Test
	void tokenBucketNeverHoldsMoreThanItsCapacity() throws InterruptedException {
		RedisLayout layout = layout(new TokenBucket(10, 20, Duration.ofSeconds(1)));
		for (int i = 0; i < 10; i++) {
			acquire(layout, "client", 1);
		}
		Thread.sleep(1000);
		// 20 tokens' worth of time has passed, but the bucket holds 10: one request
		// leaves 9, whatever the time the requests themselves take (a token refills every
		// 50 ms, so counting admissions would race the refill on a busy machine).
		Decision first = acquire(layout, "client", 1);
		assertThat(first.allowed()).isTrue();
		assertThat(first.remaining()).isEqualTo(9);
		assertThat(first.limit()).isEqualTo(10);
	}

	@Test
	void tokenBucketReportsFractionalTokens() {
		RedisLayout layout = layout(new TokenBucket(10, 1, Duration.ofHours(1)));
		acquire(layout, "client", 3);
		LimitSnapshot snapshot = peek(layout, "client").limits().get(0);
		assertThat(snapshot.remaining()).isEqualTo(7);
		assertThat(snapshot.state().get("tokens").doubleValue()).isCloseTo(7.0, within(0.01));
	}

	@Test
	void leakyBucketRejectsWhenTheQueueIsFullUntilOneUnitDrains() throws InterruptedException {
		RedisLayout layout = layout(new LeakyBucket(5, 5, Duration.ofSeconds(1)));
		for (int i = 0; i < 5; i++) {
			assertThat(acquire(layout, "client", 1).allowed()).isTrue();
		}
		Decision full = acquire(layout, "client", 1);
		assertThat(full.allowed()).isFalse();
		// One unit drains in 200ms at 5 per second.
		assertThat(full.retryAfterNanos()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(200).toNanos());
		Thread.sleep(Duration.ofNanos(full.retryAfterNanos()).toMillis() + 10);
		assertThat(acquire(layout, "client", 1).allowed()).isTrue();
	}

	@Test
	void leakyBucketLevelIsFractional() {
		RedisLayout layout = layout(new LeakyBucket(5, 1, Duration.ofHours(1)));
		acquire(layout, "client", 2);
		LimitSnapshot snapshot = peek(layout, "client").limits().get(0);
		assertThat(snapshot.remaining()).isEqualTo(3);
		assertThat(snapshot.state().get("level").doubleValue()).isCloseTo(2.0, within(0.01));
	}

	@Test
	void slidingWindowLogAdmitsAgainOnlyOnceTheOldestEntryLeavesTheWindow() throws InterruptedException {
		RedisLayout layout = layout(new SlidingWindowLog(3, Duration.ofMillis(500)));
		for (int i = 0; i < 3; i++) {
			assertThat(acquire(layout, "client", 1).allowed()).isTrue();
		}
		Decision rejected = acquire(layout, "client", 1);
		assertThat(rejected.allowed()).isFalse();
		assertThat(rejected.retryAfterNanos()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(500).toNanos());
		assertThat(peek(layout, "client").limits().get(0).state()).containsEntry("logSize", 3L);
		Thread.sleep(Duration.ofNanos(rejected.retryAfterNanos()).toMillis() + 20);
		assertThat(acquire(layout, "client", 1).allowed()).isTrue();
	}

	@Test
	void slidingWindowCounterWeighsThePreviousWindowByItsOverlap() throws InterruptedException {
		// The worked example: 50 requests in the previous window, 30 in the current one.
		Duration window = Duration.ofSeconds(1);
		RedisLayout layout = layout(new SlidingWindowCounter(100, window));
		sleepUntilNextWindow(window, 0);
		acquire(layout, "client", 50);
		sleepUntilNextWindow(window, 50);
		acquire(layout, "client", 30);
		LimitSnapshot snapshot = peek(layout, "client").limits().get(0);
		assertThat(snapshot.state()).containsEntry("current", 30L).containsEntry("previous", 50L);
		double estimate = snapshot.state().get("estimate").doubleValue();
		// Within the current window the estimate is 30 plus a fading part of 50.
		assertThat(estimate).isBetween(30.0, 80.0);
		assertThat(snapshot.remaining()).isEqualTo((long) Math.floor(100 - estimate + 1e-9));
	}

	@Test
	void slidingWindowCounterRejectsWhenTheEstimateLeavesNoRoom() {
		RedisLayout layout = layout(new SlidingWindowCounter(10, Duration.ofDays(1)));
		assertThat(acquire(layout, "client", 10).allowed()).isTrue();
		Decision rejected = acquire(layout, "client", 1);
		assertThat(rejected.allowed()).isFalse();
		assertThat(rejected.retryAfterNanos()).isPositive();
	}

	@Test
	void allLimitsOfATierAdmitOrNoneConsumes() {
		RedisLayout layout = layout(new TokenBucket(10, 1, Duration.ofHours(1)), new FixedWindow(2, Duration.ofDays(1)));
		assertThat(this.script.acquire(layout, "client", 2).block()[0].allowed()).isTrue();
		Decision[] rejected = this.script.acquire(layout, "client", 1).block();
		assertThat(rejected[0].allowed()).isTrue();
		// What the bucket holds, since the rejected request consumed nothing.
		assertThat(rejected[0].remaining()).isEqualTo(8);
		assertThat(rejected[1].allowed()).isFalse();
		// The token bucket was not charged for the rejected request.
		assertThat(peek(layout, "client").limits().get(0).remaining()).isEqualTo(8);
	}

	@Test
	void everyRejectionsResetIsItsRetryAfter() {
		Duration hour = Duration.ofHours(1);
		for (Limit limit : List.of(new FixedWindow(2, hour), new SlidingWindowLog(2, hour),
				new SlidingWindowCounter(2, hour), new TokenBucket(2, 1, hour), new LeakyBucket(2, 1, hour))) {
			RedisLayout layout = layout(limit);
			acquire(layout, "reset-" + limit.algorithm(), 2);
			Decision rejected = acquire(layout, "reset-" + limit.algorithm(), 1);
			assertThat(rejected.allowed()).as(limit.toString()).isFalse();
			assertThat(rejected.resetNanos()).as(limit.toString()).isEqualTo(rejected.retryAfterNanos()).isPositive();
		}
	}

	@Test
	void anAdmissionsResetIsWhenItsNextUnitComesBack() {
		Duration hour = Duration.ofHours(1);
		// Read well within a minute of the admission, whenever this runs.
		long hourMinusAMinute = hour.minusMinutes(1).toNanos();
		// The fourth token, not a full bucket (3 hours).
		assertThat(acquire(layout(new TokenBucket(10, 1, hour)), "tokens", 3).resetNanos())
			.isBetween(hourMinusAMinute, hour.toNanos());
		// One slot drained, not an empty queue (2 hours).
		assertThat(acquire(layout(new LeakyBucket(5, 1, hour)), "queue", 2).resetNanos())
			.isBetween(hourMinusAMinute, hour.toNanos());
		// The oldest entry's expiry, not the newest's.
		RedisLayout log = layout(new SlidingWindowLog(5, hour));
		acquire(log, "log", 1);
		assertThat(acquire(log, "log", 1).resetNanos()).isBetween(hourMinusAMinute, hour.toNanos());
	}

	@Test
	void aDaysWindowsResetIsMidnightUtcOfRedisTime() {
		Duration day = Duration.ofDays(1);
		RedisLayout layout = layout(new FixedWindow(10, day), new SlidingWindowCounter(10, day));
		long before = redisTimeMicros();
		Decision[] decisions = this.script.acquire(layout, "client", 3).block();
		long after = redisTimeMicros();
		long microsPerDay = day.toNanos() / 1000;
		long midnight = (Math.floorDiv(after, microsPerDay) + 1) * microsPerDay;
		assertThat(Math.floorDiv(before, microsPerDay)).as("the call straddled midnight")
			.isEqualTo(Math.floorDiv(after, microsPerDay));
		assertThat(decisions[0].resetNanos()).isBetween((midnight - after) * 1000, (midnight - before) * 1000);
		// The counter's 3 weigh 2 or less once a third of tomorrow has passed.
		long eightHours = Duration.ofHours(8).toNanos();
		assertThat(decisions[1].resetNanos()).isBetween((midnight - after) * 1000 + eightHours,
				(midnight - before) * 1000 + eightHours);
	}

	@Test
	void keysShareOneHashTagAndTheBucketExpiresWhenItIsAsGoodAsNew() {
		RedisLayout layout = layout(new FixedWindow(10, Duration.ofSeconds(30)), new TokenBucket(5, 1, Duration.ofSeconds(1)));
		acquire(layout, "10.0.0.1", 1);
		List<String> keys = layout.keys("10.0.0.1");
		assertThat(keys).containsExactly("rl:{orders:free:10.0.0.1}:1:1:10:3.0E7:0.0",
				"rl:{orders:free:10.0.0.1}:2:4:5:1000000.0:1.0", "rl:{orders:free:10.0.0.1}:b2");
		// Both limits' states are in the bucket key, which lives until the tier's longest
		// limit is as good as new; the limits' own keys are for sliding window logs only.
		Long ttl = redis.template().getExpire(keys.get(2)).map(Duration::toMillis).block();
		assertThat(ttl).isPositive().isLessThanOrEqualTo(30_000).isGreaterThan(20_000);
		assertThat(redis.template().countExistingKeys(keys.subList(0, 2)).block()).isZero();
	}

	@Test
	void instantsAreStoredToTheMicrosecond() {
		RedisLayout layout = layout(new TokenBucket(5, 1, Duration.ofHours(1)), new SlidingWindowLog(5, Duration.ofHours(1)));
		this.script.acquire(layout, "client", 1).block();
		List<String> keys = layout.keys("client");
		String bucket = redis.template().opsForValue().get(keys.get(2)).block();
		String admittedAt = redis.template().opsForList().index(keys.get(1), 0).block();
		// Sixteen digits of microseconds since the epoch, not 14 significant digits: one
		// request judged, then the token bucket's tokens and refill instant.
		assertThat(bucket).matches("1\\|" + tag(layout, 0).replace(".", "\\.") + " 4 \\d{16}");
		assertThat(admittedAt).matches("\\d{16}");
	}

	@Test
	void aFractionOfATokenIsKeptExactlyAndARejectionLeavesTheStateAsItWasRead() {
		RedisLayout layout = layout(new TokenBucket(5, 1, Duration.ofHours(1)));
		String bucket = layout.keys("client").get(1);
		double tokens = 7.0 / 3.0;
		// A refill instant an hour ahead: no refill during the test, only what is spent.
		String refilledAt = Long.toString(redisTimeMicros() + Duration.ofHours(1).toNanos() / 1000);
		redis.template().opsForValue().set(bucket, "0|" + tag(layout, 0) + " " + tokens + " " + refilledAt).block();
		assertThat(acquire(layout, "client", 1).allowed()).isTrue();
		String afterOne = redis.template().opsForValue().get(bucket).block();
		String[] fields = afterOne.substring(afterOne.indexOf(' ') + 1).split(" ");
		assertThat(Double.parseDouble(fields[0])).isEqualTo(tokens - 1);
		assertThat(fields[1]).isEqualTo(refilledAt);
		assertThat(acquire(layout, "client", 2).allowed()).isFalse();
		assertThat(redis.template().opsForValue().get(bucket).block())
			.isEqualTo("2" + afterOne.substring(afterOne.indexOf('|')));
	}

	@Test
	void peekOfAnUnknownBucketIsEmpty() {
		RedisLayout layout = layout(new FixedWindow(10, Duration.ofDays(1)));
		assertThat(new BucketReader(this.script).peek(new BucketId("orders", "free", "nobody"), layout).blockOptional()).isEmpty();
	}

	private long redisTimeMicros() {
		return redis.template()
			.execute((connection) -> connection.serverCommands().time(TimeUnit.MICROSECONDS))
			.map(Number.class::cast)
			.blockFirst()
			.longValue();
	}

	private void sleepUntilNextWindow(Duration window, long offsetMillis) throws InterruptedException {
		List<Object> time = redis.template().execute((connection) -> connection.serverCommands().time())
			.map(Object.class::cast)
			.collectList()
			.block();
		long nowMillis = ((Number) time.get(0)).longValue();
		long windowMillis = window.toMillis();
		Thread.sleep(windowMillis - Math.floorMod(nowMillis, windowMillis) + offsetMillis);
	}

	private Decision acquire(RedisLayout layout, String key, long cost) {
		return this.script.acquire(layout, key, cost).block()[0];
	}

	private BucketSnapshot peek(RedisLayout layout, String key) {
		return new BucketReader(this.script).peek(new BucketId("orders", "free", key), layout).block();
	}

	/**
	 * The tag under which the bucket key holds limit {@code index}'s state.
	 */
	private String tag(RedisLayout layout, int index) {
		List<String> arguments = layout.arguments("peek", 0, 0, 0, Refund.NONE, Refund.NONE, this.script.slots());
		return arguments.get(ScriptProtocol.FIXED_ARGUMENTS + (index + 1) * ScriptProtocol.ARGUMENTS_PER_LIMIT - 1);
	}

	private RedisLayout layout(Limit... limits) {
		return this.script.layouts().layout("orders", new Tier("free", List.of(limits)));
	}

}
