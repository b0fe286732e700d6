package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a client's state becomes when its tier's limits change on a live reload: kept,
 * re-based or fresh, as each algorithm's {@link Limit#carryOver} defines.
 */
class BucketTakeOverTests {

	private static final long SECOND = 1_000_000_000L;

	private static final Duration MINUTE = Duration.ofMinutes(1);

	/** Inside one minute window, whatever the window's alignment. */
	private static final long NOW = 60 * SECOND * 1000 + 10 * SECOND;

	@Test
	void anUnchangedLimitKeepsItsStateAsItIs() {
		Limit limit = new SlidingWindowLog(5, MINUTE);
		Bucket before = spent(limit, 3);
		Bucket after = takenOver(before, new SlidingWindowLog(5, MINUTE));
		assertThat(after.peek(0, NOW).remaining()).isEqualTo(2);
		assertThat(after.requests()).isEqualTo(3);
		assertThat(before.retired()).isTrue();
		assertThat(after.retired()).isFalse();
	}

	@Test
	void fixedWindowKeepsItsCountUnderARaisedLimitInTheSameWindow() {
		Bucket after = takenOver(spent(new FixedWindow(3, MINUTE), 3), new FixedWindow(10, MINUTE));
		assertThat(after.peek(0, NOW).remaining()).isEqualTo(7);
		assertThat(after.tryAcquire(NOW, 7).allowed()).isTrue();
		assertThat(after.tryAcquire(NOW, 1).allowed()).isFalse();
	}

	@Test
	void fixedWindowSpentBeyondALoweredLimitHasNothingLeftUntilItsWindowEnds() {
		Bucket after = takenOver(spent(new FixedWindow(10, MINUTE), 8), new FixedWindow(5, MINUTE));
		Decision decision = after.peek(0, NOW);
		assertThat(decision.remaining()).isZero();
		assertThat(after.tryAcquire(NOW, 1).allowed()).isFalse();
		assertThat(after.tryAcquire(NOW + 50 * SECOND, 1).allowed()).isTrue();
	}

	@Test
	void aFixedWindowsDebtCarriesOverButALoweredLimitCreatesNone() {
		FixedWindow before = new FixedWindow(5, MINUTE);
		Bucket lowered = takenOver(charged(before, 8), new FixedWindow(2, MINUTE));
		// 3 past the old limit stay past the new one.
		assertThat(lowered.describe(0, NOW)).containsEntry("count", 5L);
		Bucket raised = takenOver(charged(before, 8), new FixedWindow(10, MINUTE));
		assertThat(raised.peek(0, NOW).remaining()).isEqualTo(2);
	}

	@Test
	void fixedWindowStartsAfreshUnderAnotherWindow() {
		Bucket after = takenOver(spent(new FixedWindow(3, MINUTE), 3), new FixedWindow(3, Duration.ofHours(1)));
		assertThat(after.peek(0, NOW).remaining()).isEqualTo(3);
	}

	@Test
	void slidingWindowCounterUnderALoweredLimitHasNothingLeftKeepingTheCurrentWindowFirst() {
		Limit before = new SlidingWindowCounter(10, MINUTE);
		Bucket bucket = Bucket.of(List.of(before), NOW - 60 * SECOND);
		bucket.tryAcquire(NOW - 60 * SECOND, 5);
		assertThat(bucket.tryAcquire(NOW, 4).allowed()).isTrue();
		// An estimate of 4 + 5 * 50/60: brought down to the new limit by the current
		// window's 4 alone, not each count clamped, which would leave a debt.
		Bucket after = takenOver(bucket, new SlidingWindowCounter(4, MINUTE));
		assertThat(after.describe(0, NOW)).containsEntry("current", 4L).containsEntry("previous", 0L);
		assertThat(after.peek(0, NOW).remaining()).isZero();
		Bucket other = takenOver(spent(before, 4), new SlidingWindowCounter(4, Duration.ofSeconds(30)));
		assertThat(other.describe(0, NOW)).containsEntry("current", 0L).containsEntry("previous", 0L);
	}

	@Test
	void slidingWindowCounterBroughtDownToALoweredLimitLosesUnitsOfThePreviousWindowFirst() {
		// Half way through the window: the previous one weighs half.
		long now = NOW + 20 * SECOND;
		Bucket after = takenOver(counted(12, 2, now), new SlidingWindowCounter(4, MINUTE), now);
		// An estimate of 2 + 12 * 0.5, within the old limit, brought down to 2 + 4 * 0.5:
		// nothing left, until the previous window's weight falls.
		assertThat(after.describe(0, now)).containsEntry("current", 2L).containsEntry("previous", 4L);
		assertThat(after.describe(0, now)).containsEntry("estimate", 4.0);
		assertThat(after.peek(0, now).remaining()).isZero();
		assertThat(after.peek(0, now).resetNanos()).isEqualTo(15 * SECOND);
	}

	@Test
	void aSlidingWindowCountersDebtCarriesOverButALoweredLimitCreatesNone() {
		long now = NOW + 20 * SECOND;
		// 2 + 20 * 0.5 = 12, 2 past the old limit: 2 past the new one, 6.
		Bucket lowered = takenOver(counted(20, 2, now), new SlidingWindowCounter(4, MINUTE), now);
		assertThat(lowered.describe(0, now)).containsEntry("current", 2L).containsEntry("previous", 8L);
		assertThat(lowered.describe(0, now)).containsEntry("estimate", 6.0);
		// 5 + 12 * 0.5 = 11: the current window alone keeps the debt of 1.
		Bucket current = takenOver(counted(12, 5, now), new SlidingWindowCounter(4, MINUTE), now);
		assertThat(current.describe(0, now)).containsEntry("current", 5L).containsEntry("previous", 0L);
		// A raised limit gives the difference: 12 counted against 20, 8 left.
		Bucket raised = takenOver(counted(20, 2, now), new SlidingWindowCounter(20, MINUTE), now);
		assertThat(raised.describe(0, now)).containsEntry("current", 2L).containsEntry("previous", 20L);
		assertThat(raised.peek(0, now).remaining()).isEqualTo(8);
	}

	@Test
	void slidingWindowLogKeepsTheMostRecentInstantsUpToTheNewLimitUnderAnyWindow() {
		Bucket bucket = Bucket.of(List.of(new SlidingWindowLog(10, MINUTE)), NOW);
		bucket.tryAcquire(NOW - 40 * SECOND, 3);
		bucket.tryAcquire(NOW - 5 * SECOND, 2);
		// A 30 second window: the 3 units of 40 seconds ago no longer count.
		Bucket shorter = takenOver(bucket, new SlidingWindowLog(10, Duration.ofSeconds(30)));
		assertThat(shorter.peek(0, NOW).remaining()).isEqualTo(8);
		Bucket lowered = takenOver(shorter, new SlidingWindowLog(1, Duration.ofSeconds(30)));
		assertThat(lowered.peek(0, NOW).remaining()).isZero();
		// The most recent instant was kept: it expires 25 seconds from now.
		assertThat(lowered.peek(0, NOW).resetNanos()).isEqualTo(25 * SECOND);
	}

	@Test
	void tokenBucketKeepsWhatWasConsumedAgainstTheNewCapacity() {
		TokenBucket before = new TokenBucket(10, 1, Duration.ofSeconds(1));
		Bucket bucket = Bucket.of(List.of(before), NOW - 2 * SECOND);
		bucket.tryAcquire(NOW - 2 * SECOND, 6);
		// 4 left, 2 refilled since: 6 tokens, 4 consumed; under a capacity of 20, 16 left.
		Bucket raised = takenOver(bucket, new TokenBucket(20, 5, Duration.ofSeconds(1)));
		assertThat(raised.describe(0, NOW)).containsEntry("tokens", 16.0);
		// The new rate from now on.
		assertThat(raised.describe(0, NOW + SECOND)).containsEntry("tokens", 20.0);
		Bucket lowered = takenOver(spent(before, 8), new TokenBucket(5, 1, Duration.ofSeconds(1)));
		assertThat(lowered.describe(0, NOW)).containsEntry("tokens", 0.0);
		Bucket idle = takenOver(spent(before, 0), new TokenBucket(50, 1, Duration.ofSeconds(1)));
		assertThat(idle.describe(0, NOW)).containsEntry("tokens", 50.0);
	}

	@Test
	void aTokenBucketsDebtCarriesOverButALoweredCapacityCreatesNone() {
		TokenBucket before = new TokenBucket(10, 1, Duration.ofSeconds(1));
		Bucket bucket = Bucket.of(List.of(before), NOW);
		bucket.settle(NOW, 14, NOW, false);
		Bucket lowered = takenOver(bucket, new TokenBucket(5, 1, Duration.ofSeconds(1)));
		assertThat(lowered.describe(0, NOW)).containsEntry("tokens", -4.0);
		assertThat(lowered.peek(0, NOW).remaining()).isZero();
		// 14 consumed against a capacity of 20: 6 left, as any consumption carries over.
		Bucket charged = Bucket.of(List.of(before), NOW);
		charged.settle(NOW, 14, NOW, false);
		Bucket raised = takenOver(charged, new TokenBucket(20, 1, Duration.ofSeconds(1)));
		assertThat(raised.describe(0, NOW)).containsEntry("tokens", 6.0);
	}

	@Test
	void leakyBucketKeepsItsLevelUpToTheNewCapacity() {
		LeakyBucket before = new LeakyBucket(10, 1, Duration.ofSeconds(1));
		Bucket bucket = Bucket.of(List.of(before), NOW - 2 * SECOND);
		bucket.tryAcquire(NOW - 2 * SECOND, 8);
		Bucket raised = takenOver(bucket, new LeakyBucket(20, 2, Duration.ofSeconds(1)));
		assertThat(raised.describe(0, NOW)).containsEntry("level", 6.0);
		assertThat(raised.describe(0, NOW + SECOND)).containsEntry("level", 4.0);
		Bucket lowered = takenOver(spent(before, 8), new LeakyBucket(3, 1, Duration.ofSeconds(1)));
		assertThat(lowered.describe(0, NOW)).containsEntry("level", 3.0);
	}

	@Test
	void aLeakyBucketsDebtCarriesOverButALoweredCapacityCreatesNone() {
		LeakyBucket before = new LeakyBucket(10, 1, Duration.ofSeconds(1));
		// 4 above the old capacity stay above the new one.
		Bucket lowered = takenOver(charged(before, 14), new LeakyBucket(5, 1, Duration.ofSeconds(1)));
		assertThat(lowered.describe(0, NOW)).containsEntry("level", 9.0);
		assertThat(lowered.peek(0, NOW).remaining()).isZero();
		Bucket raised = takenOver(charged(before, 14), new LeakyBucket(20, 1, Duration.ofSeconds(1)));
		assertThat(raised.describe(0, NOW)).containsEntry("level", 14.0);
		assertThat(raised.peek(0, NOW).remaining()).isEqualTo(6);
	}

	@Test
	void anotherAlgorithmStartsAfresh() {
		Bucket after = takenOver(spent(new FixedWindow(3, MINUTE), 3), new SlidingWindowCounter(3, MINUTE));
		assertThat(after.peek(0, NOW).remaining()).isEqualTo(3);
	}

	@Test
	void limitsAreMatchedByPositionAndAnAddedLimitStartsAfresh() {
		Bucket before = Bucket.of(List.of(new FixedWindow(5, MINUTE), new TokenBucket(10, 1, MINUTE)), NOW);
		before.tryAcquire(NOW, 4);
		Bucket after = Bucket.of(List.of(new FixedWindow(5, MINUTE)), NOW);
		after.takeOver(before, NOW);
		assertThat(after.peek(0, NOW).remaining()).isEqualTo(1);
		Bucket grown = Bucket.of(List.of(new FixedWindow(5, MINUTE), new FixedWindow(100, Duration.ofHours(1))),
				NOW);
		grown.takeOver(after, NOW);
		assertThat(grown.peek(0, NOW).remaining()).isEqualTo(1);
		assertThat(grown.peek(1, NOW).remaining()).isEqualTo(100);
	}

	private static Bucket spent(Limit limit, long units) {
		Bucket bucket = Bucket.of(List.of(limit), NOW);
		for (long i = 0; i < units; i++) {
			bucket.tryAcquire(NOW, 1);
		}
		return bucket;
	}

	private static Bucket charged(Limit limit, long units) {
		Bucket bucket = Bucket.of(List.of(limit), NOW);
		bucket.settle(NOW, units, NOW, false);
		return bucket;
	}

	/**
	 * A sliding window counter of 10 a minute that counted {@code previous} units in the
	 * window before the one of {@code nowNanos} and {@code current} in it.
	 */
	private static Bucket counted(long previous, long current, long nowNanos) {
		Bucket bucket = Bucket.of(List.of(new SlidingWindowCounter(10, MINUTE)), nowNanos - 60 * SECOND);
		bucket.settle(nowNanos - 60 * SECOND, previous, nowNanos, false);
		bucket.settle(nowNanos, current, nowNanos, false);
		return bucket;
	}

	private static Bucket takenOver(Bucket previous, Limit next) {
		return takenOver(previous, next, NOW);
	}

	private static Bucket takenOver(Bucket previous, Limit next, long nowNanos) {
		Bucket bucket = Bucket.of(List.of(next), nowNanos);
		bucket.takeOver(previous, nowNanos);
		return bucket;
	}

}
