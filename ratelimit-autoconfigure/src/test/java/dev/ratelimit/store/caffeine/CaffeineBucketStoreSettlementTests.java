package dev.ratelimit.store.caffeine;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.ratelimit.algorithm.Concurrency;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.Settlement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Caffeine store's side of a request settled after its response: a check that
 * takes only the slots, a settlement applied to the bucket serving the client, and a
 * bucket holding slots kept until they come back, or in debt until it is paid back.
 */
class CaffeineBucketStoreSettlementTests {

	private static final long SECOND = 1_000_000_000L;

	private static final long HOUR = 3600 * SECOND;

	private final AtomicLong time = new AtomicLong(5 * SECOND);

	/** Two in flight and ten units a minute, idle for a minute and a second at most. */
	private final Tier api = new Tier("api", List.of(new Concurrency(2), new FixedWindow(10, Duration.ofMinutes(1))));

	/** Slots only, as good as new at once without them: kept for the expiry tolerance. */
	private final Tier slots = new Tier("slots", List.of(new Concurrency(1)));

	private final Tier tokens = new Tier("tokens", List.of(new TokenBucket(10, 1, Duration.ofSeconds(1))));

	private final RateLimitPolicy llm = new RateLimitPolicy("llm", new KeySource.ClientIp(), false, 1,
			StoreType.CAFFEINE, Map.of("api", this.api, "slots", this.slots, "tokens", this.tokens), this.api);

	private final CaffeineBucketStore store = new CaffeineBucketStore(this.time::get, 1000, Runnable::run);

	private final BucketId alice = new BucketId("llm", "api", "alice");

	@Test
	void aCheckTakesTheSlotButNoUnits() {
		Verdict checked = this.store.check(this.alice, this.api, 4).block();
		assertThat(checked.allowed()).isTrue();
		// The window as it stands, for a response not counted.
		assertThat(checked.decision(0).remaining()).isEqualTo(1);
		assertThat(checked.decision(1).remaining()).isEqualTo(10);
		assertThat(state(this.alice, 0)).containsEntry("inFlight", 1L);
		assertThat(state(this.alice, 1)).containsEntry("count", 0L);
		assertThat(this.store.checkNow(this.alice, this.api, 11).allowed()).isFalse();
		assertThat(state(this.alice, 0)).containsEntry("inFlight", 1L);
	}

	@Test
	void aSettlementChargesAndAnswersTheLimitsAsTheyStandAfterIt() {
		this.store.checkNow(this.alice, this.api, 1);
		Verdict settled = this.store.settle(this.alice, this.api, new Settlement(12, 0, true, false)).block();
		assertThat(settled.allowed()).isTrue();
		assertThat(settled.limitCount()).isEqualTo(2);
		assertThat(settled.decision(0).remaining()).isEqualTo(2);
		// In debt: nothing left, until the window ends.
		assertThat(settled.reportedIndex()).isEqualTo(1);
		assertThat(settled.reported().remaining()).isZero();
		assertThat(settled.reported().resetNanos()).isPositive();
		assertThat(state(this.alice, 0)).containsEntry("inFlight", 0L);
		assertThat(state(this.alice, 1)).containsEntry("count", 12L);
		Verdict refused = this.store.checkNow(this.alice, this.api, 1);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.reported().remaining()).isZero();
	}

	@Test
	void aSettlementGivesBackWhereTheUnitsWereCounted() {
		BucketId id = new BucketId("llm", "tokens", "alice");
		this.store.acquireNow(id, this.tokens, 8);
		this.time.addAndGet(SECOND);
		Verdict settled = this.store.settle(id, this.tokens, new Settlement(-5, SECOND, true, false)).block();
		// 2 left, 1 refilled, 5 given back.
		assertThat(settled.reported().remaining()).isEqualTo(8);
		assertThat(state(id, 0)).containsEntry("tokens", 8.0);
	}

	@Test
	void aBucketGoneHasNothingToSettleAndIsNotCreated() {
		assertThat(this.store.settle(this.alice, this.api, new Settlement(5, 0, true, false)).blockOptional())
			.isEmpty();
		assertThat(this.store.bucketCount(this.llm).block()).isZero();
	}

	@Test
	void aBucketHoldingSlotsOutlivesItsIdleTimeoutUntilTheyAreReleased() {
		this.store.acquireNow(this.alice, this.api, 1);
		this.store.checkNow(this.alice, this.api, 1);
		this.time.addAndGet(HOUR);
		assertThat(this.store.bucketCount(this.llm).block()).isEqualTo(1);
		assertThat(this.store.checkNow(this.alice, this.api, 1).allowed()).isFalse();
		this.store.settle(this.alice, this.api, new Settlement(0, HOUR, true, false)).block();
		this.time.addAndGet(HOUR);
		// One slot is still taken.
		assertThat(state(this.alice, 0)).containsEntry("inFlight", 1L);
		this.store.settle(this.alice, this.api, new Settlement(0, 2 * HOUR, true, false)).block();
		// Then idle for its tier's idle timeout, a minute, and the expiry tolerance.
		this.time.addAndGet(61 * SECOND);
		assertThat(this.store.bucket(this.llm, "alice").collectList().block()).isEmpty();
	}

	@Test
	void aBucketOfSlotsOnlyIsKeptWhileItHoldsOneAndForgottenSoonAfter() {
		BucketId id = new BucketId("llm", "slots", "203.0.113.7");
		assertThat(this.store.acquireNow(id, this.slots, 1).allowed()).isTrue();
		this.time.addAndGet(HOUR);
		assertThat(this.store.acquireNow(id, this.slots, 1).allowed()).isFalse();
		this.time.addAndGet(HOUR);
		Verdict settled = this.store.settle(id, this.slots, new Settlement(0, 2 * HOUR, true, false)).block();
		assertThat(settled.reported().remaining()).isEqualTo(1);
		this.time.addAndGet(SECOND);
		assertThat(this.store.bucket(this.llm, "203.0.113.7").collectList().block()).isEmpty();
		assertThat(this.store.settle(id, this.slots, new Settlement(0, 0, true, false)).blockOptional()).isEmpty();
	}

	@Test
	void aChargeIntoDebtKeepsTheBucketUntilItIsPaidBack() {
		BucketId id = new BucketId("llm", "tokens", "alice");
		this.store.acquireNow(id, this.tokens, 1);
		// 41 tokens short of nothing at 1 a second: full again in 51 seconds, not 10.
		this.store.settle(id, this.tokens, new Settlement(50, 0, true, false)).block();
		this.time.addAndGet(30 * SECOND);
		assertThat(state(id, 0)).containsEntry("tokens", -11.0);
		// A request refused meanwhile keeps the bucket as long, and no longer.
		assertThat(this.store.acquireNow(id, this.tokens, 1).allowed()).isFalse();
		// Then the expiry tolerance.
		this.time.addAndGet(22 * SECOND - 1);
		assertThat(this.store.bucket(this.llm, "alice").collectList().block()).hasSize(1);
		this.time.addAndGet(1);
		assertThat(this.store.bucket(this.llm, "alice").collectList().block()).isEmpty();
	}

	@Test
	void aDebtCarriedOverByAReloadKeepsTheBucketToo() {
		BucketId id = new BucketId("llm", "tokens", "alice");
		this.store.acquireNow(id, this.tokens, 1);
		this.store.settle(id, this.tokens, new Settlement(50, 0, true, false)).block();
		Tier reloaded = new Tier("tokens", List.of(new TokenBucket(10, 1, Duration.ofSeconds(1))));
		assertThat(this.store.acquireNow(id, reloaded, 1).allowed()).isFalse();
		this.time.addAndGet(52 * SECOND - 1);
		assertThat(this.store.bucket(this.llm, "alice").collectList().block()).hasSize(1);
		this.time.addAndGet(1);
		assertThat(this.store.bucket(this.llm, "alice").collectList().block()).isEmpty();
	}

	@Test
	void aBucketWithoutSlotsStillExpiresOnItsIdleTimeout() {
		this.store.checkNow(this.alice, this.api, 1);
		this.store.settle(this.alice, this.api, new Settlement(1, 0, true, false)).block();
		this.time.addAndGet(61 * SECOND - 1);
		assertThat(this.store.bucket(this.llm, "alice").collectList().block()).hasSize(1);
		this.time.addAndGet(1);
		assertThat(this.store.bucket(this.llm, "alice").collectList().block()).isEmpty();
	}

	private Map<String, Number> state(BucketId id, int limit) {
		BucketSnapshot snapshot = this.store.bucket(this.llm, id.key())
			.filter((bucket) -> bucket.id().equals(id))
			.blockFirst();
		return snapshot.limits().get(limit).state();
	}

}
