package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How long a client's state, left idle, takes to be as good as new
 * ({@link Limit#idleNanos}), after which a store may forget it: the idle timeout within
 * the quota, longer for a debt, so that idleness never forgives one.
 */
class IdleTimeTests {

	private static final long SECOND = 1_000_000_000L;

	private static final Duration MINUTE = Duration.ofMinutes(1);

	/** The start of a minute window on the clock's timeline. */
	private static final long WINDOW_START = 60 * SECOND * 1000;

	@Test
	void aTokenBucketWithinItsCapacityTakesItsIdleTimeout() {
		TokenBucket limit = new TokenBucket(10, 1, Duration.ofSeconds(1));
		LimitState state = limit.newState(0);
		assertThat(limit.idleNanos(state, 0)).isEqualTo(10 * SECOND);
		state.commit(0, 10);
		assertThat(limit.idleNanos(state, 4 * SECOND)).isEqualTo(10 * SECOND);
	}

	@Test
	void aTokenBucketInDebtTakesUntilItIsFullAgain() {
		// 100 tokens a minute, charged 5000: 49 minutes of debt, then a minute to refill.
		TokenBucket limit = new TokenBucket(100, 100, MINUTE);
		LimitState state = limit.newState(0);
		limit.charge(state, 0, 5000);
		assertThat(limit.idleNanos(state, 0)).isEqualTo(50 * 60 * SECOND);
		// Counted from the state as last written: ten minutes later, ten fewer.
		assertThat(limit.idleNanos(state, 10 * 60 * SECOND)).isEqualTo(40 * 60 * SECOND);
		// Not refilled by the reading.
		assertThat(limit.idleNanos(state, 0)).isEqualTo(50 * 60 * SECOND);
		// Once within its capacity again, its idle timeout.
		assertThat(limit.idleNanos(state, 49 * 60 * SECOND + 1)).isEqualTo(60 * SECOND);
	}

	@Test
	void aShapingTokenBucketTakesItsReservationsAndAnyDebtBeyond() {
		TokenBucket limit = new TokenBucket(2, 1, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(10)));
		LimitState state = limit.newState(0);
		assertThat(limit.idleNanos(state, 0)).isEqualTo(12 * SECOND);
		limit.charge(state, 0, 20);
		assertThat(limit.idleNanos(state, 0)).isEqualTo(20 * SECOND);
	}

	@Test
	void aLeakyBucketAboveItsCapacityTakesUntilItHasDrained() {
		LeakyBucket limit = new LeakyBucket(5, 1, Duration.ofSeconds(1));
		LimitState state = limit.newState(0);
		state.commit(0, 5);
		assertThat(limit.idleNanos(state, 0)).isEqualTo(5 * SECOND);
		limit.charge(state, 0, 7);
		assertThat(limit.idleNanos(state, 0)).isEqualTo(12 * SECOND);
		assertThat(limit.idleNanos(state, 3 * SECOND)).isEqualTo(9 * SECOND);
		assertThat(limit.idleNanos(state, 8 * SECOND)).isEqualTo(5 * SECOND);
	}

	@Test
	void aWindowPastItsLimitTakesNoLongerThanItsIdleTimeout() {
		FixedWindow fixed = new FixedWindow(3, MINUTE);
		LimitState counted = fixed.newState(WINDOW_START);
		fixed.charge(counted, WINDOW_START, 300);
		assertThat(fixed.idleNanos(counted, WINDOW_START)).isEqualTo(60 * SECOND);
		SlidingWindowCounter sliding = new SlidingWindowCounter(3, MINUTE);
		LimitState weighed = sliding.newState(WINDOW_START);
		sliding.charge(weighed, WINDOW_START, 300);
		// Weighing in the next window, forgotten after it.
		assertThat(sliding.idleNanos(weighed, WINDOW_START)).isEqualTo(120 * SECOND);
		SlidingWindowLog log = new SlidingWindowLog(3, MINUTE);
		LimitState logged = log.newState(WINDOW_START);
		log.charge(logged, WINDOW_START, 300);
		assertThat(log.idleNanos(logged, WINDOW_START)).isEqualTo(60 * SECOND);
	}

	@Test
	void aBucketTakesItsLongestLimit() {
		Bucket bucket = Bucket.of(List.of(new Concurrency(2), new FixedWindow(10, MINUTE),
				new LeakyBucket(5, 1, Duration.ofSeconds(1))), WINDOW_START);
		assertThat(bucket.idleNanos(WINDOW_START)).isEqualTo(60 * SECOND);
		bucket.settle(WINDOW_START, 100, WINDOW_START, false);
		assertThat(bucket.idleNanos(WINDOW_START)).isEqualTo(100 * SECOND);
		Bucket single = Bucket.of(List.of(new TokenBucket(10, 1, Duration.ofSeconds(1))), 0);
		single.settle(0, 30, 0, false);
		assertThat(single.idleNanos(0)).isEqualTo(30 * SECOND);
	}

	@Test
	void aRetiredBucketOfSeveralLimitsTakesNoTime() {
		List<Limit> limits = List.of(new FixedWindow(10, MINUTE), new TokenBucket(10, 1, Duration.ofSeconds(1)));
		Bucket previous = Bucket.of(limits, 0);
		Bucket.of(limits, 0).takeOver(previous, 0);
		assertThat(previous.idleNanos(0)).isZero();
	}

}
