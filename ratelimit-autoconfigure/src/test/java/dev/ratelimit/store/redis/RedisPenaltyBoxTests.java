package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Penalty;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.AfterResponse;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BlockSnapshot;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.core.RedisCallback;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis store under a penalty box, on a real Redis and its time: the decision's
 * script looks for the client's block and starts one in the same call, for every node
 * at once, through the lean scripts and the generic one alike. Redis time cannot be moved,
 * so the blocks here last an hour, and a block's end or forgiveness is reached by writing
 * the block key as the script would have left it by then.
 */
class RedisPenaltyBoxTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private static final Duration HOUR = Duration.ofHours(1);

	@RegisterExtension
	static final SharedRedis redis = new SharedRedis();

	private final Penalty penalty = new Penalty(List.of(HOUR, Duration.ofHours(2), Duration.ofHours(3)),
			Duration.ofDays(1));

	/**
	 * One a day: a breach at the second request, and no room again within a test unless
	 * its bucket is reset.
	 */
	private final Tier lean = new Tier("anonymous", List.of(new FixedWindow(1, Duration.ofDays(1))));

	private final Tier log = new Tier("log", List.of(new SlidingWindowLog(1, Duration.ofDays(1))));

	private final Tier generic = new Tier("pro",
			List.of(new TokenBucket(5, 1, Duration.ofDays(1)), new FixedWindow(1, Duration.ofDays(1))));

	private final RateLimitPolicy orders = new RateLimitPolicy("orders", new KeySource.ClientIp(), false, 1,
			StoreType.REDIS, Map.of("anonymous", this.lean, "log", this.log, "pro", this.generic), this.lean,
			OnMissingKey.CLIENT_ADDRESS, RateLimitPolicy.DEFAULT_MISSING_KEY_STATUS, null, AfterResponse.NONE,
			this.penalty);

	private final RedisBucketStore store = store();

	private final BucketDecider decider = this.store.penalized(this.penalty);

	@ParameterizedTest
	@ValueSource(strings = { "anonymous", "log", "pro" })
	void aBreachBlocksTheBucketEvenOnceItHasRoomAgainTakingNothingWhileBlocked(String tierName) {
		Tier tier = this.orders.tiers().get(tierName);
		BucketId id = new BucketId("orders", tierName, "alice");
		assertThat(acquire(id, tier).allowed()).isTrue();
		Verdict breach = acquire(id, tier);
		assertThat(breach.allowed()).isFalse();
		assertThat(breach.startedBlock()).isTrue();
		assertThat(breach.block().step()).isEqualTo(1);
		assertThat(breach.limitCount()).isEqualTo(tier.limits().size());
		assertThat(breach.retryAfterNanos()).isEqualTo(Math.max(HOUR.toNanos(), limitsRetryAfter(breach)));
		// Its bucket has room again: the block still refuses, before the bucket is read.
		redis.blockingTemplate().delete(layout(tier).keys("alice"));
		Verdict blocked = acquire(id, tier);
		assertThat(blocked.blocked()).isTrue();
		assertThat(blocked.limitCount()).isZero();
		assertThat(Duration.ofNanos(blocked.retryAfterNanos())).isBetween(HOUR.minusMinutes(1), HOUR);
		assertThat(blocked.block().untilNanos()).isEqualTo(breach.block().untilNanos());
		assertThat(this.store.bucket(this.orders, "alice").collectList().block()).isEmpty();
	}

	@Test
	void aBreachOnOneNodeBlocksTheClientOnEveryNode() {
		BucketDecider other = store().penalized(this.penalty);
		BucketId id = new BucketId("orders", "anonymous", "alice");
		assertThat(acquire(id, this.lean).allowed()).isTrue();
		assertThat(acquire(id, this.lean).startedBlock()).isTrue();
		Verdict elsewhere = other.acquire(id, this.lean, 1).block();
		assertThat(elsewhere.blocked()).isTrue();
		assertThat(elsewhere.fallback()).isFalse();
		BucketSnapshot bucket = this.store.bucket(this.orders, "alice").blockFirst();
		assertThat(bucket.requests()).as("requests judged by the limits").isEqualTo(2);
	}

	@Test
	void eachBreachAfterABlockEscalatesAndTheLastStepRepeats() {
		BucketId id = new BucketId("orders", "anonymous", "alice");
		acquire(id, this.lean);
		assertThat(acquire(id, this.lean).block().step()).isEqualTo(1);
		List<Integer> steps = new ArrayList<>();
		for (int breach = 0; breach < 3; breach++) {
			endBlock("alice");
			long before = redisMicros();
			Verdict verdict = acquire(id, this.lean);
			long after = redisMicros();
			assertThat(verdict.startedBlock()).isTrue();
			steps.add(verdict.block().step());
			Duration step = this.penalty.blockFor().get(verdict.block().step() - 1);
			assertThat(verdict.block().untilNanos() / 1000 - step.toNanos() / 1000)
				.as("a block of its step from the decision's Redis time")
				.isBetween(before, after);
			assertThat(verdict.retryAfterNanos()).isEqualTo(Math.max(step.toNanos(), limitsRetryAfter(verdict)));
		}
		assertThat(steps).containsExactly(2, 3, 3);
	}

	@Test
	void aForgivenClientStartsAgainAtTheFirstStep() {
		BucketId id = new BucketId("orders", "anonymous", "alice");
		acquire(id, this.lean);
		acquire(id, this.lean);
		endBlock("alice");
		assertThat(acquire(id, this.lean).block().step()).isEqualTo(2);
		String key = layout(this.lean).blockKey("alice");
		// Its block ended and its forgiveness passed, a microsecond ago.
		long now = redisMicros();
		redis.blockingTemplate().opsForValue().set(key, "2 " + (now - 2) + " " + (now - 1));
		Verdict afresh = acquire(id, this.lean);
		assertThat(afresh.block().step()).isEqualTo(1);
		String stored = redis.blockingTemplate().opsForValue().get(key);
		String[] fields = stored.split(" ");
		assertThat(fields).hasSize(3);
		assertThat(Long.parseLong(fields[2]) - Long.parseLong(fields[1])).isEqualTo(Duration.ofDays(1).toNanos() / 1000);
		// The key lives until the record is forgiven: an hour of block and a day.
		assertThat(redis.blockingTemplate().getExpire(key)).isBetween(Duration.ofHours(25).toSeconds() - 60,
				Duration.ofHours(25).toSeconds());
	}

	@Test
	void aCheckIsBlockedAndBreachesAsAnAcquire() {
		BucketId id = new BucketId("orders", "pro", "alice");
		assertThat(this.decider.check(id, this.generic, 1).block().allowed()).isTrue();
		this.store.acquire(id, this.generic, 1).block();
		Verdict breach = this.decider.check(id, this.generic, 1).block();
		assertThat(breach.startedBlock()).isTrue();
		assertThat(this.decider.check(id, this.generic, 1).block().blocked()).isTrue();
		assertThat(this.decider.acquire(id, this.generic, 1).block().blocked()).isTrue();
	}

	@Test
	void aPolicyWithoutAPenaltyIsNeverBlocked() {
		BucketId id = new BucketId("orders", "anonymous", "alice");
		acquire(id, this.lean);
		acquire(id, this.lean);
		Verdict unpenalized = this.store.acquire(id, this.lean, 1).block();
		assertThat(unpenalized.blocked()).isFalse();
		assertThat(unpenalized.block()).isNull();
		assertThat(unpenalized.allowed()).isFalse();
	}

	@Test
	void blocksAreListedLiftedAndResetWithTheirBuckets() {
		BucketId alice = new BucketId("orders", "anonymous", "alice");
		BucketId bob = new BucketId("orders", "pro", "bob");
		acquire(alice, this.lean);
		acquire(alice, this.lean);
		acquire(bob, this.generic);
		acquire(bob, this.generic);
		List<BlockSnapshot> blocks = this.store.blocks(this.orders).collectList().block();
		assertThat(blocks).extracting((block) -> block.id()).containsExactlyInAnyOrder(alice, bob);
		assertThat(blocks).allSatisfy((block) -> {
			assertThat(block.block().step()).isEqualTo(1);
			assertThat(Duration.ofNanos(block.remainingNanos())).isBetween(HOUR.minusMinutes(1), HOUR);
		});
		assertThat(this.store.blocks(this.orders, "alice").collectList().block()).extracting(BlockSnapshot::id)
			.containsExactly(alice);
		assertThat(this.store.bucketCount(this.orders).block()).isEqualTo(2);
		// An ended block is listed no more.
		endBlock("alice");
		assertThat(this.store.blocks(this.orders, "alice").collectList().block()).isEmpty();
		assertThat(this.store.lift(this.orders, "alice").block()).isTrue();
		assertThat(this.store.lift(this.orders, "alice").block()).isFalse();
		assertThat(this.store.reset(this.orders, "bob").block()).isTrue();
		assertThat(redis.blockingTemplate().hasKey(layout(this.generic).blockKey("bob"))).isFalse();
		assertThat(acquire(bob, this.generic).allowed()).isTrue();
		assertThat(this.store.blocks(this.orders).collectList().block()).isEmpty();
	}

	@Test
	void aLiftedClientIsJudgedByItsLimitsAndStartsAgainAtTheFirstStep() {
		BucketId id = new BucketId("orders", "anonymous", "alice");
		acquire(id, this.lean);
		acquire(id, this.lean);
		endBlock("alice");
		assertThat(acquire(id, this.lean).block().step()).isEqualTo(2);
		assertThat(this.store.lift(this.orders, "alice").block()).isTrue();
		Verdict judged = acquire(id, this.lean);
		assertThat(judged.blocked()).isFalse();
		assertThat(judged.block().step()).as("its bucket still refuses: a breach of the first step").isEqualTo(1);
	}

	/**
	 * When the limits alone would admit the request again.
	 */
	private static long limitsRetryAfter(Verdict verdict) {
		long retryAfter = 0;
		for (int i = 0; i < verdict.limitCount(); i++) {
			retryAfter = Math.max(retryAfter, verdict.decision(i).retryAfterNanos());
		}
		return retryAfter;
	}

	/**
	 * Rewrite the client's block as if it had ended a microsecond ago, its record kept.
	 */
	private void endBlock(String clientKey) {
		String key = layout(this.lean).blockKey(clientKey);
		String[] fields = redis.blockingTemplate().opsForValue().get(key).split(" ");
		long now = redisMicros();
		redis.blockingTemplate().opsForValue().set(key, fields[0] + " " + (now - 1) + " " + fields[2]);
	}

	private static long redisMicros() {
		return redis.blockingTemplate()
			.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time(TimeUnit.MICROSECONDS));
	}

	private RedisLayout layout(Tier tier) {
		return new RedisLayout("rl", "orders", tier);
	}

	private Verdict acquire(BucketId id, Tier tier) {
		return this.decider.acquire(id, tier, 1).block();
	}

	private static RedisBucketStore store() {
		return TestStores.redis(redis.template(), TIMEOUT,
				TestStores.guard("redis", FailureMode.DENY, 5, Duration.ofSeconds(1)));
	}

}
