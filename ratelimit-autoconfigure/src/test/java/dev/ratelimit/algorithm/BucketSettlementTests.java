package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tier judged before its cost is known ({@link Bucket#check}) and settled once the
 * exchange has shown it ({@link Bucket#settle}): every limit in one step.
 */
class BucketSettlementTests {

	private static final long SECOND = 1_000_000_000L;

	private static final Duration MINUTE = Duration.ofMinutes(1);

	/** Ten seconds into a minute window. */
	private static final long NOW = 60 * SECOND * 1000 + 10 * SECOND;

	private final Bucket bucket = Bucket.of(List.of(new Concurrency(2), new TokenBucket(10, 1, Duration.ofSeconds(1)),
			new FixedWindow(5, MINUTE)), NOW);

	@Test
	void aCheckTakesTheSlotButNoUnits() {
		Verdict verdict = this.bucket.check(NOW, 3);
		assertThat(verdict.allowed()).isTrue();
		// The slot taken; the rate limits as they stand, for a response not counted.
		assertThat(verdict.decision(0).remaining()).isEqualTo(1);
		assertThat(verdict.decision(1).remaining()).isEqualTo(10);
		assertThat(verdict.decision(1).resetNanos()).isZero();
		assertThat(verdict.decision(2).remaining()).isEqualTo(5);
		assertThat(verdict.decision(2).resetNanos()).isZero();
		assertThat(this.bucket.describe(0, NOW)).containsEntry("inFlight", 1L);
		assertThat(this.bucket.describe(1, NOW)).containsEntry("tokens", 10.0);
		assertThat(this.bucket.describe(2, NOW)).containsEntry("count", 0L);
		assertThat(this.bucket.inFlight()).isEqualTo(1);
		assertThat(this.bucket.requests()).isEqualTo(1);
	}

	@Test
	void aCheckChecksRoomForTheCost() {
		assertThat(this.bucket.check(NOW, 6).allowed()).isFalse();
		assertThat(this.bucket.inFlight()).isZero();
		this.bucket.settle(NOW, 5, NOW, false);
		Verdict refused = this.bucket.check(NOW, 1);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.reportedIndex()).isEqualTo(2);
		// The limits that would admit report what they hold: the concurrency limit's slot
		// was not taken.
		assertThat(refused.decision(0).allowed()).isTrue();
		assertThat(refused.decision(0).remaining()).isEqualTo(2);
		assertThat(this.bucket.inFlight()).isZero();
	}

	@Test
	void aCheckRefusedByItsSlotsTakesNothing() {
		this.bucket.check(NOW, 1);
		this.bucket.check(NOW, 1);
		Verdict refused = this.bucket.check(NOW, 1);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.reportedIndex()).isZero();
		assertThat(this.bucket.inFlight()).isEqualTo(2);
		assertThat(this.bucket.requests()).isEqualTo(3);
	}

	@Test
	void aCheckOfOneLimitTakesItsSlotOrNothing() {
		Bucket slots = Bucket.of(List.of(new Concurrency(1)), NOW);
		assertThat(slots.check(NOW, 1).allowed()).isTrue();
		assertThat(slots.check(NOW, 1).allowed()).isFalse();
		assertThat(slots.inFlight()).isEqualTo(1);
		Bucket window = Bucket.of(List.of(new FixedWindow(1, MINUTE)), NOW);
		assertThat(window.check(NOW, 1).reported().remaining()).isEqualTo(1);
		assertThat(window.check(NOW, 1).allowed()).isTrue();
		assertThat(window.inFlight()).isZero();
		window.settle(NOW, 1, NOW, false);
		Verdict refused = window.check(NOW, 1);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.reported().retryAfterNanos()).isEqualTo(50 * SECOND);
	}

	@Test
	void aCheckReportsTheRateLimitsAsTheyStandAfterEarlierCharges() {
		this.bucket.settle(NOW, 4, NOW, false);
		Verdict verdict = this.bucket.check(NOW, 1);
		assertThat(verdict.allowed()).isTrue();
		assertThat(verdict.decision(1).remaining()).isEqualTo(6);
		assertThat(verdict.decision(2).remaining()).isEqualTo(1);
		// The window's one left is reported, with its reset.
		assertThat(verdict.reportedIndex()).isEqualTo(2);
		assertThat(verdict.reported().resetNanos()).isEqualTo(50 * SECOND);
	}

	@Test
	void aSettlementChargesGivesBackAndReleasesInEveryLimit() {
		this.bucket.tryAcquire(NOW, 2);
		this.bucket.settle(NOW, 4, NOW, false);
		assertThat(this.bucket.describe(1, NOW)).containsEntry("tokens", 4.0);
		assertThat(this.bucket.describe(2, NOW)).containsEntry("count", 6L);
		assertThat(this.bucket.inFlight()).isEqualTo(1);
		Verdict standing = this.bucket.peek(NOW);
		assertThat(standing.allowed()).isTrue();
		assertThat(standing.reportedIndex()).isEqualTo(2);
		assertThat(standing.reported().remaining()).isZero();
		assertThat(standing.reported().resetNanos()).isEqualTo(50 * SECOND);
		assertThat(this.bucket.tryAcquire(NOW, 1).allowed()).isFalse();
		// The estimate was above the cost: given back where it was counted, and the slot.
		this.bucket.settle(NOW + SECOND, -3, NOW, true);
		assertThat(this.bucket.describe(1, NOW + SECOND)).containsEntry("tokens", 8.0);
		assertThat(this.bucket.describe(2, NOW + SECOND)).containsEntry("count", 3L);
		assertThat(this.bucket.inFlight()).isZero();
		assertThat(this.bucket.requests()).isEqualTo(2);
	}

	@Test
	void aSettlementOfNothingButItsEndReleasesTheSlotOnly() {
		this.bucket.tryAcquire(NOW, 2);
		this.bucket.settle(NOW, 0, NOW, true);
		assertThat(this.bucket.inFlight()).isZero();
		assertThat(this.bucket.describe(1, NOW)).containsEntry("tokens", 8.0);
		assertThat(this.bucket.describe(2, NOW)).containsEntry("count", 2L);
	}

	@Test
	void aBucketOfOneLimitSettlesInItsOwnWords() {
		Bucket single = Bucket.of(List.of(new TokenBucket(10, 1, Duration.ofSeconds(1))), NOW);
		single.settle(NOW, 12, NOW, true);
		assertThat(single.describe(0, NOW)).containsEntry("tokens", -2.0);
		Verdict standing = single.peek(NOW);
		assertThat(standing.reported().remaining()).isZero();
		assertThat(standing.reported().resetNanos()).isEqualTo(3 * SECOND);
	}

}
