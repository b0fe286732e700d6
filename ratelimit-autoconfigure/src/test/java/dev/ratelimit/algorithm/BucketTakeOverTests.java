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
	void fixedWindowStartsAfreshUnderAnotherWindow() {
		Bucket after = takenOver(spent(new FixedWindow(3, MINUTE), 3), new FixedWindow(3, Duration.ofHours(1)));
		assertThat(after.peek(0, NOW).remaining()).isEqualTo(3);
	}

	@Test
	void slidingWindowCounterKeepsBothCountsClampedToTheNewLimit() {
		Limit before = new SlidingWindowCounter(10, MINUTE);
		Bucket bucket = Bucket.of(List.of(before), NOW - 60 * SECOND);
		bucket.tryAcquire(NOW - 60 * SECOND, 5);
		assertThat(bucket.tryAcquire(NOW, 4).allowed()).isTrue();
		Bucket after = takenOver(bucket, new SlidingWindowCounter(4, MINUTE));
		assertThat(after.describe(0, NOW)).containsEntry("current", 4L).containsEntry("previous", 4L);
		assertThat(after.peek(0, NOW).remaining()).isZero();
		Bucket other = takenOver(spent(before, 4), new SlidingWindowCounter(4, Duration.ofSeconds(30)));
		assertThat(other.describe(0, NOW)).containsEntry("current", 0L).containsEntry("previous", 0L);
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

	private static Bucket takenOver(Bucket previous, Limit next) {
		Bucket bucket = Bucket.of(List.of(next), NOW);
		bucket.takeOver(previous, NOW);
		return bucket;
	}

}
