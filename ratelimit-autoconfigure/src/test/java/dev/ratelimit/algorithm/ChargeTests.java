package dev.ratelimit.algorithm;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A charge, a cost known only once the response is, taken without judging: each
 * algorithm goes past its quota, refuses every request until it has room again, and
 * says so in the numbers its headers carry: remaining 0, and a retry-after until the
 * request fits, the debt counted. A peek admits, and describes the debt.
 */
class ChargeTests {

	private static final long SECOND = 1_000_000_000L;

	private static final long MILLI = 1_000_000L;

	private static final Duration MINUTE = Duration.ofMinutes(1);

	/** The start of a minute window on the clock's timeline. */
	private static final long WINDOW_START = 60 * SECOND * 1000;

	@Test
	void aTokenBucketThatMetersGoesBelowZeroAndRefusesUntilItsDebtIsRefilled() {
		TokenBucket limit = new TokenBucket(10, 2, Duration.ofSeconds(1));
		LimitState state = limit.newState(0);
		state.commit(0, 4);
		limit.charge(state, 0, 10);
		assertThat(state.describe(0)).containsEntry("tokens", -4.0);
		Decision refused = state.probe(0, 1);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.remaining()).isZero();
		// 5 tokens to come at 2 per second: the debt of 4 and the request's own.
		assertThat(refused.retryAfterNanos()).isEqualTo(5 * SECOND / 2);
		assertThat(refused.resetNanos()).isEqualTo(refused.retryAfterNanos());
		// A cost above the capacity is told when the bucket is full.
		assertThat(state.probe(0, 20).retryAfterNanos()).isEqualTo(7 * SECOND);
		Decision peek = state.probe(0, 0);
		assertThat(peek.allowed()).isTrue();
		assertThat(peek.remaining()).isZero();
		assertThat(peek.resetNanos()).isEqualTo(5 * SECOND / 2);
		assertThat(state.probe(5 * SECOND / 2 - MILLI, 1).allowed()).isFalse();
		assertThat(state.probe(5 * SECOND / 2, 1).allowed()).isTrue();
	}

	@Test
	void aRequestOfNothingLeavesATokenBucketsDebtAsItIs() {
		TokenBucket limit = new TokenBucket(10, 2, Duration.ofSeconds(1));
		LimitState state = limit.newState(0);
		limit.charge(state, 0, 13);
		assertThat(limit.tryAcquire(state, 0, 0).allowed()).isTrue();
		state.commit(0, 0);
		assertThat(state.describe(0)).containsEntry("tokens", -3.0);
		// Refilled from the debt, not from zero: half a second later, 2 short of 0.
		assertThat(state.describe(SECOND / 2)).containsEntry("tokens", -2.0);
	}

	@Test
	void aShapingTokenBucketHoldsTheNextRequestBehindItsDebt() {
		TokenBucket limit = new TokenBucket(2, 1, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(10)));
		LimitState state = limit.newState(0);
		limit.charge(state, 0, 4);
		Decision held = state.probe(0, 1);
		assertThat(held.allowed()).isTrue();
		assertThat(held.delayNanos()).isEqualTo(3 * SECOND);
	}

	@Test
	void aLeakyBucketFillsPastItsCapacityAndRefusesUntilItHasDrained() {
		LeakyBucket limit = new LeakyBucket(5, 1, Duration.ofSeconds(1));
		LimitState state = limit.newState(0);
		state.commit(0, 3);
		limit.charge(state, 0, 4);
		assertThat(state.describe(0)).containsEntry("level", 7.0);
		Decision refused = state.probe(0, 1);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.remaining()).isZero();
		// Until the level is 4: 3 units drained at 1 per second.
		assertThat(refused.retryAfterNanos()).isEqualTo(3 * SECOND);
		// The whole capacity fits once the queue is empty.
		assertThat(state.probe(0, 5).retryAfterNanos()).isEqualTo(7 * SECOND);
		Decision peek = state.probe(0, 0);
		assertThat(peek.allowed()).isTrue();
		assertThat(peek.remaining()).isZero();
		assertThat(peek.resetNanos()).isEqualTo(3 * SECOND);
		assertThat(limit.tryAcquire(state, 0, 0).allowed()).isTrue();
		state.commit(0, 0);
		assertThat(state.describe(0)).containsEntry("level", 7.0);
		assertThat(state.probe(3 * SECOND - MILLI, 1).allowed()).isFalse();
		assertThat(state.probe(3 * SECOND, 1).allowed()).isTrue();
	}

	@Test
	void aFixedWindowCountsPastItsLimitAndRefusesUntilTheWindowEnds() {
		FixedWindow limit = new FixedWindow(3, MINUTE);
		long now = WINDOW_START + 10 * SECOND;
		LimitState state = limit.newState(now);
		state.commit(now, 1);
		limit.charge(state, now, 5);
		assertThat(state.describe(now)).containsEntry("count", 6L);
		Decision refused = state.probe(now, 1);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.remaining()).isZero();
		assertThat(refused.retryAfterNanos()).isEqualTo(50 * SECOND);
		Decision peek = state.probe(now, 0);
		assertThat(peek.allowed()).isTrue();
		assertThat(peek.remaining()).isZero();
		assertThat(peek.resetNanos()).isEqualTo(50 * SECOND);
		assertThat(state.probe(WINDOW_START + 60 * SECOND, 1).remaining()).isEqualTo(2);
	}

	@Test
	void aSlidingWindowCounterCountsPastItsLimitAndWeighsTheDebtIntoTheNextWindow() {
		SlidingWindowCounter limit = new SlidingWindowCounter(10, MINUTE);
		LimitState state = limit.newState(WINDOW_START);
		limit.charge(state, WINDOW_START, 20);
		assertThat(state.describe(WINDOW_START)).containsEntry("current", 20L);
		Decision refused = state.probe(WINDOW_START, 1);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.remaining()).isZero();
		// One unit fits once the 20, weighing in the next window, weigh 9: 33 s into it.
		assertThat(refused.retryAfterNanos()).isEqualTo(93 * SECOND);
		Decision peek = state.probe(WINDOW_START, 0);
		assertThat(peek.allowed()).isTrue();
		assertThat(peek.remaining()).isZero();
		assertThat(peek.resetNanos()).isEqualTo(93 * SECOND);
		assertThat(state.probe(WINDOW_START + 93 * SECOND - MILLI, 1).allowed()).isFalse();
		assertThat(state.probe(WINDOW_START + 93 * SECOND, 1).allowed()).isTrue();
	}

	@Test
	void aSlidingWindowLogLogsAChargeAfterItsNewestEntry() {
		SlidingWindowLog limit = new SlidingWindowLog(5, MINUTE);
		long now = WINDOW_START;
		LimitState state = limit.newState(now);
		state.commit(now, 1);
		limit.charge(state, now + 10 * SECOND, 2);
		assertThat(state.probe(now + 10 * SECOND, 2).remaining()).isZero();
		// Three units fit once the first entry has expired, 50 s on.
		Decision refused = state.probe(now + 10 * SECOND, 3);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfterNanos()).isEqualTo(50 * SECOND);
	}

	@Test
	void aSlidingWindowLogChargedPastItsLimitRefusesUntilTheChargeHasExpiredAndKeepsOnlyItsLimit() {
		SlidingWindowLog limit = new SlidingWindowLog(3, MINUTE);
		long now = WINDOW_START;
		LimitState state = limit.newState(now);
		state.commit(now, 1);
		limit.charge(state, now + 10 * SECOND, 100);
		assertThat(state.describe(now + 10 * SECOND)).containsEntry("logSize", 3);
		Decision refused = state.probe(now + 10 * SECOND, 1);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.remaining()).isZero();
		// The older entry expires first; the charged ones, all at once, a minute on.
		assertThat(refused.retryAfterNanos()).isEqualTo(60 * SECOND);
		assertThat(state.probe(now + 60 * SECOND, 1).allowed()).isFalse();
		assertThat(state.probe(now + 70 * SECOND, 3).allowed()).isTrue();
	}

	@Test
	void aSlidingWindowLogsLateChargeStaysInOrder() {
		SlidingWindowLog limit = new SlidingWindowLog(2, MINUTE);
		long now = WINDOW_START;
		LimitState state = limit.newState(now);
		state.commit(now + 5 * SECOND, 1);
		// A late reading, before the newest entry: logged with it, not before it.
		limit.charge(state, now, 2);
		assertThat(state.probe(now + 5 * SECOND, 1).retryAfterNanos()).isEqualTo(60 * SECOND);
		assertThat(state.probe(now + 65 * SECOND, 2).allowed()).isTrue();
	}

}
