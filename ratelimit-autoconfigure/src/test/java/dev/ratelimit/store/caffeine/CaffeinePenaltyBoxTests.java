package dev.ratelimit.store.caffeine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.algorithm.Block;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Penalty;
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
import dev.ratelimit.support.ManualClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Caffeine store under a penalty box, on a clock moved by hand: a breach blocks the
 * bucket even once it has room again, until exactly the block's end, consuming nothing
 * meanwhile; breaches after a block escalate; a client is forgiven exactly
 * {@code forgive-after} after its block; an operator lists and lifts blocks.
 */
class CaffeinePenaltyBoxTests {

	private static final Duration MINUTE = Duration.ofMinutes(1);

	private final ManualClock clock = new ManualClock();

	private final CaffeineBucketStore store = new CaffeineBucketStore(this.clock, 1000, Runnable::run);

	/**
	 * Two a second: room again a second after any breach, long before its block ends.
	 */
	private final Tier anonymous = new Tier("anonymous", List.of(new FixedWindow(2, Duration.ofSeconds(1))));

	private final Tier pro = new Tier("pro", List.of(new TokenBucket(1, 1, Duration.ofSeconds(1))));

	private final Penalty penalty = new Penalty(List.of(MINUTE, Duration.ofMinutes(10), Duration.ofHours(1)),
			Duration.ofHours(24));

	private final RateLimitPolicy orders = new RateLimitPolicy("orders", new KeySource.ClientIp(), false, 1,
			StoreType.CAFFEINE, Map.of("anonymous", this.anonymous, "pro", this.pro), this.anonymous,
			OnMissingKey.CLIENT_ADDRESS, RateLimitPolicy.DEFAULT_MISSING_KEY_STATUS, null, AfterResponse.NONE,
			this.penalty);

	private final BucketDecider decider = this.store.penalized(this.penalty);

	private final BucketId alice = new BucketId("orders", "anonymous", "alice");

	@Test
	void aBreachBlocksTheBucketUntilExactlyTheEndOfItsBlockEvenOnceItHasRoomAgain() {
		this.clock.advanceToMultipleOf(MINUTE);
		long start = this.clock.nanoTime();
		acquire(this.alice);
		acquire(this.alice);
		Verdict breach = acquire(this.alice);
		assertThat(breach.allowed()).isFalse();
		assertThat(breach.startedBlock()).isTrue();
		assertThat(breach.limitCount()).isEqualTo(1);
		assertThat(breach.block().step()).isEqualTo(1);
		assertThat(breach.block().untilNanos()).isEqualTo(start + MINUTE.toNanos());
		assertThat(breach.retryAfterSeconds()).isEqualTo(60);
		this.clock.advance(Duration.ofSeconds(5));
		Verdict blocked = acquire(this.alice);
		assertThat(blocked.blocked()).isTrue();
		assertThat(blocked.limitCount()).isZero();
		assertThat(blocked.retryAfterNanos()).isEqualTo(Duration.ofSeconds(55).toNanos());
		this.clock.advance(Duration.ofSeconds(55).minusNanos(1));
		assertThat(acquire(this.alice).blocked()).isTrue();
		this.clock.advance(Duration.ofNanos(1));
		Verdict judged = acquire(this.alice);
		assertThat(judged.allowed()).isTrue();
		assertThat(judged.block()).isNull();
	}

	@Test
	void aBlockedRequestTakesNothingFromTheBucket() {
		acquire(this.alice);
		acquire(this.alice);
		acquire(this.alice);
		long requests = requests(this.alice);
		for (int i = 0; i < 5; i++) {
			assertThat(acquire(this.alice).blocked()).isTrue();
		}
		assertThat(requests(this.alice)).isEqualTo(requests);
	}

	@Test
	void eachBreachAfterABlockEscalatesUntilTheLastStepWhichRepeats() {
		List<Integer> steps = new ArrayList<>();
		List<Long> seconds = new ArrayList<>();
		for (int breach = 0; breach < 4; breach++) {
			Verdict verdict = breach(this.alice);
			steps.add(verdict.block().step());
			seconds.add(verdict.retryAfterSeconds());
			this.clock.advance(Duration.ofNanos(verdict.block().remainingNanos(this.clock.nanoTime())));
		}
		assertThat(steps).containsExactly(1, 2, 3, 3);
		assertThat(seconds).containsExactly(60L, 600L, 3600L, 3600L);
	}

	@Test
	void aClientIsForgivenExactlyForgiveAfterAfterItsBlockEnded() {
		Verdict first = breach(this.alice);
		this.clock.advance(MINUTE);
		Verdict second = breach(this.alice);
		assertThat(second.block().step()).isEqualTo(2);
		// Ten minutes of block, then a day less a nanosecond: not forgiven yet.
		this.clock.advance(Duration.ofMinutes(10).plus(Duration.ofHours(24)).minusNanos(1));
		assertThat(breach(this.alice).block().step()).isEqualTo(3);
		this.clock.advance(Duration.ofHours(1).plus(Duration.ofHours(24)));
		assertThat(breach(this.alice).block().step()).isEqualTo(1);
		assertThat(first.block().step()).isEqualTo(1);
	}

	@Test
	void aBlockIsTheBucketsOnlyNotAnotherTiersNorAnotherKeys() {
		breach(this.alice);
		assertThat(acquire(this.alice).blocked()).isTrue();
		assertThat(acquire(new BucketId("orders", "pro", "alice"), this.pro).allowed()).isTrue();
		assertThat(acquire(new BucketId("orders", "anonymous", "bob")).allowed()).isTrue();
		assertThat(acquire(new BucketId("search", "anonymous", "alice")).allowed()).isTrue();
	}

	@Test
	void aCheckedRequestIsBlockedAndBreachesAsAnAcquiredOne() {
		Tier one = new Tier("anonymous", List.of(new FixedWindow(1, Duration.ofSeconds(1))));
		BucketId login = new BucketId("logins", "anonymous", "alice");
		assertThat(this.decider.checkNow(login, one, 1).allowed()).isTrue();
		// Its response counted: the unit is taken after it.
		this.store.acquireNow(login, one, 1);
		Verdict breach = this.decider.checkNow(login, one, 1);
		assertThat(breach.startedBlock()).isTrue();
		this.clock.advance(Duration.ofSeconds(2));
		assertThat(this.decider.checkNow(login, one, 1).blocked()).isTrue();
		assertThat(this.decider.check(login, one, 1).block().blocked()).isTrue();
	}

	@Test
	void theBlocksInForceAreListedAndEndedOnesAreNot() {
		breach(this.alice);
		this.clock.advance(Duration.ofSeconds(30));
		breach(new BucketId("orders", "anonymous", "bob"));
		List<BlockSnapshot> blocks = this.store.blocks(this.orders).collectList().block();
		assertThat(blocks).extracting((block) -> block.id().key()).containsExactlyInAnyOrder("alice", "bob");
		assertThat(blocks).filteredOn((block) -> block.id().key().equals("alice"))
			.singleElement()
			.satisfies((block) -> {
				assertThat(block.block().step()).isEqualTo(1);
				assertThat(block.remainingNanos()).isEqualTo(Duration.ofSeconds(30).toNanos());
			});
		assertThat(this.store.blocks(this.orders, "alice").collectList().block()).hasSize(1);
		this.clock.advance(Duration.ofSeconds(30));
		assertThat(this.store.blocks(this.orders).collectList().block()).extracting((block) -> block.id().key())
			.containsExactly("bob");
		assertThat(this.store.blocks(this.orders, "alice").collectList().block()).isEmpty();
	}

	@Test
	void aLiftedClientIsJudgedByItsLimitsAndStartsAgainAtTheFirstStep() {
		breach(this.alice);
		this.clock.advance(MINUTE);
		breach(this.alice);
		assertThat(this.store.lift(this.orders, "alice").block()).isTrue();
		assertThat(this.store.lift(this.orders, "alice").block()).isFalse();
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(acquire(this.alice).allowed()).isTrue();
		assertThat(acquire(this.alice).allowed()).isTrue();
		// Its buckets stayed as they were: the next refusal is a breach, of the first step.
		assertThat(acquire(this.alice).block().step()).isEqualTo(1);
	}

	@Test
	void aResetForgetsTheBlockWithTheBuckets() {
		breach(this.alice);
		assertThat(this.store.reset(this.orders, "alice").block()).isTrue();
		assertThat(acquire(this.alice).allowed()).isTrue();
		assertThat(this.store.blocks(this.orders).collectList().block()).isEmpty();
	}

	@Test
	void aBreachFoundByARacingDecisionStartsNothing() {
		PenaltyRecords records = new PenaltyRecords(this.clock, 10, Runnable::run);
		long now = this.clock.nanoTime();
		PenaltyRecords.Breach first = records.breach(this.alice, this.penalty, now);
		assertThat(first.started()).isTrue();
		PenaltyRecords.Breach raced = records.breach(this.alice, this.penalty, now + 1);
		assertThat(raced.started()).isFalse();
		assertThat(raced.block()).isSameAs(first.block());
	}

	@Test
	void aRecordIsDroppedOnceForgiven() {
		PenaltyRecords records = new PenaltyRecords(this.clock, 10, Runnable::run);
		Block block = records.breach(this.alice, this.penalty, this.clock.nanoTime()).block();
		this.clock.advance(Duration.ofNanos(block.forgivenNanos() - this.clock.nanoTime()));
		// Kept a second past its forgiveness, which its instants decide.
		assertThat(records.forget(Set.of(this.alice))).isTrue();
		records.breach(this.alice, this.penalty, this.clock.nanoTime());
		this.clock.advance(Duration.ofHours(25).plusMinutes(2));
		assertThat(records.forget(Set.of(this.alice))).isFalse();
	}

	private Verdict breach(BucketId id) {
		Verdict verdict = acquire(id);
		while (!verdict.startedBlock()) {
			assertThat(verdict.allowed()).as("admitted before its breach").isTrue();
			verdict = acquire(id);
		}
		return verdict;
	}

	private Verdict acquire(BucketId id) {
		return acquire(id, this.anonymous);
	}

	private Verdict acquire(BucketId id, Tier tier) {
		return this.decider.acquireNow(id, tier, 1);
	}

	private long requests(BucketId id) {
		return this.store.bucket(this.orders, id.key()).blockFirst().requests();
	}

}
