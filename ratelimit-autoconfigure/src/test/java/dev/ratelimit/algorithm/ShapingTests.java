package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The schedules of the shaping buckets, on instants given in: each held request's
 * release instant, the refusals at once, the places given back.
 */
class ShapingTests {

	private static final long SECOND = 1_000_000_000L;

	private static final long MILLI = 1_000_000L;

	@Test
	void leakyBucketReleasesABurstAtTheDrainRateAndRefusesWhatDoesNotFit() {
		LimitState state = new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(10)))
			.newState(0);
		List<Long> delays = new ArrayList<>();
		int refused = 0;
		for (int i = 0; i < 8; i++) {
			Decision decision = acquire(state, 0, 1);
			if (decision.allowed()) {
				delays.add(decision.delayNanos());
			}
			else {
				refused++;
				// Until one place drains: 0.5 s.
				assertThat(decision.retryAfterNanos()).isEqualTo(SECOND / 2);
			}
		}
		assertThat(delays).containsExactly(0L, SECOND / 2, SECOND, 3 * SECOND / 2, 2 * SECOND);
		assertThat(refused).isEqualTo(3);
	}

	@Test
	void leakyBucketRefusesAtOnceARequestThatWouldWaitLongerThanTheMaxDelay() {
		LimitState state = new LeakyBucket(10, 2, Duration.ofSeconds(1), new Shaping(Duration.ofMillis(1200)))
			.newState(0);
		assertThat(acquire(state, 0, 1).delayNanos()).isZero();
		assertThat(acquire(state, 0, 1).delayNanos()).isEqualTo(SECOND / 2);
		assertThat(acquire(state, 0, 1).delayNanos()).isEqualTo(SECOND);
		Decision refused = acquire(state, 0, 1);
		assertThat(refused.allowed()).isFalse();
		// It would wait 1.5 s: once 0.3 s have drained, it would wait 1.2 s.
		assertThat(refused.retryAfterNanos()).isEqualTo(300 * MILLI);
		assertThat(refused.remaining()).isEqualTo(7);
		assertThat(acquire(state, 300 * MILLI, 1).delayNanos()).isEqualTo(1200 * MILLI);
	}

	@Test
	void leakyBucketLetsDelayAfterUnitsPassAtOnce() {
		LimitState state = new LeakyBucket(6, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(10), 3))
			.newState(0);
		List<Long> delays = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			delays.add(acquire(state, 0, 1).delayNanos());
		}
		assertThat(delays).containsExactly(0L, 0L, 0L, SECOND / 2, SECOND, 3 * SECOND / 2);
	}

	@Test
	void leakyBucketSpacesARequestArrivingWhileTheQueueDrains() {
		LimitState state = new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(10)))
			.newState(0);
		acquire(state, 0, 1);
		acquire(state, 0, 1);
		// At 0.25 s the queue holds 1.5: this request is released at 0.75 s, after the two.
		assertThat(acquire(state, SECOND / 4, 1).delayNanos()).isEqualTo(3 * SECOND / 4);
	}

	@Test
	void aRefundedPlaceLetsTheNextRequestBeReleasedSooner() {
		LimitState state = new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(10)))
			.newState(0);
		acquire(state, 0, 1);
		acquire(state, 0, 1);
		acquire(state, 0, 1);
		state.refund(SECOND / 10, 1, 0);
		assertThat(acquire(state, SECOND / 10, 1).delayNanos()).isEqualTo(SECOND - SECOND / 10);
		// 2.8 drained to 1.8 by the refund, then 1 more.
		assertThat(state.describe(SECOND / 10)).containsEntry("level", 2.8);
	}

	@Test
	void aRefundNeverTakesOffWhatHasAlreadyDrained() {
		LimitState state = new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(10)))
			.newState(0);
		acquire(state, 0, 1);
		state.refund(2 * SECOND, 1, 0);
		assertThat(state.describe(2 * SECOND)).containsEntry("level", 0.0);
	}

	@Test
	void tokenBucketReservesTokensStillToComeWithinTheMaxDelay() {
		LimitState state = new TokenBucket(2, 4, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(1)))
			.newState(0);
		List<Long> delays = new ArrayList<>();
		for (int i = 0; i < 7; i++) {
			delays.add(acquire(state, 0, 1).delayNanos());
		}
		// Two tokens at once, then one every 0.25 s up to 1 s.
		assertThat(delays).containsExactly(0L, 0L, SECOND / 4, SECOND / 2, 3 * SECOND / 4, SECOND, 0L);
		Decision refused = acquire(state, 0, 1);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfterNanos()).isEqualTo(SECOND / 4);
		assertThat(state.describe(0)).containsEntry("tokens", -4.0);
	}

	@Test
	void tokenBucketReservationsAreGivenBack() {
		LimitState state = new TokenBucket(1, 1, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(5)))
			.newState(0);
		acquire(state, 0, 1);
		assertThat(acquire(state, 0, 1).delayNanos()).isEqualTo(SECOND);
		assertThat(acquire(state, 0, 1).delayNanos()).isEqualTo(2 * SECOND);
		state.refund(0, 1, 0);
		assertThat(acquire(state, 0, 1).delayNanos()).isEqualTo(2 * SECOND);
	}

	@Test
	void aMeteringBucketNeverDelays() {
		LimitState state = new LeakyBucket(5, 2, Duration.ofSeconds(1)).newState(0);
		for (int i = 0; i < 5; i++) {
			assertThat(acquire(state, 0, 1).delayNanos()).isZero();
		}
		assertThat(acquire(state, 0, 1).allowed()).isFalse();
	}

	@Test
	void aTierIsHeldForItsLongestDelay() {
		Bucket bucket = Bucket.of(List.of(
				new LeakyBucket(10, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(10))),
				new TokenBucket(5, 0.5, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(10))),
				new FixedWindow(100, Duration.ofMinutes(1))), 0);
		assertThat(bucket.tryAcquire(0, 1).delayNanos()).isZero();
		assertThat(bucket.tryAcquire(0, 1).delayNanos()).isEqualTo(SECOND / 2);
		Verdict verdict = bucket.tryAcquire(0, 4);
		assertThat(verdict.allowed()).isTrue();
		// The queue ahead drains in 1 s; the token bucket, holding 3, waits 2 s for a fourth.
		assertThat(verdict.delayNanos()).isEqualTo(2 * SECOND);
	}

	@Test
	void aTierRefundGivesBackEveryLimitsUnits() {
		Bucket bucket = Bucket.of(List.of(
				new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(10))),
				new FixedWindow(3, Duration.ofMinutes(1)),
				new SlidingWindowLog(3, Duration.ofMinutes(1))), 0);
		bucket.tryAcquire(0, 1);
		bucket.tryAcquire(SECOND, 1);
		bucket.tryAcquire(SECOND, 1);
		// Given back as taken a little after it was admitted: the hold is timed from when
		// the verdict came back.
		bucket.settle(SECOND + 10, -1, SECOND + 5, false);
		assertThat(bucket.describe(1, SECOND + 10)).containsEntry("count", 2L);
		assertThat(bucket.describe(2, SECOND + 10)).containsEntry("logSize", 2);
		assertThat(bucket.tryAcquire(SECOND + 10, 1).allowed()).isTrue();
		assertThat(bucket.tryAcquire(SECOND + 10, 1).allowed()).isFalse();
	}

	@Test
	void reservationsCarryOverWhetherTheBucketStillShapesOrMeters() {
		TokenBucket shaping = new TokenBucket(1, 1, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(5)));
		LimitState before = shaping.newState(0);
		acquire(before, 0, 1);
		acquire(before, 0, 1);
		acquire(before, 0, 1);
		TokenBucket longerHold = new TokenBucket(1, 1, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(9)));
		LimitState kept = longerHold.newState(0);
		longerHold.carryOver(shaping, before, kept, 0);
		// Two reservations outstanding: the next request waits behind them.
		assertThat(kept.describe(0)).containsEntry("tokens", -2.0);
		assertThat(acquire(kept, 0, 1).delayNanos()).isEqualTo(3 * SECOND);
		// A meter keeps them too: their units were let through, and it refuses until they
		// are paid back.
		TokenBucket meter = new TokenBucket(1, 1, Duration.ofSeconds(1));
		LimitState metered = meter.newState(0);
		meter.carryOver(shaping, before, metered, 0);
		assertThat(metered.describe(0)).containsEntry("tokens", -2.0);
		assertThat(metered.probe(0, 1).retryAfterNanos()).isEqualTo(3 * SECOND);
	}

	@Test
	void aQueueCarriesOverWhenShapingIsTurnedOn() {
		LeakyBucket meter = new LeakyBucket(5, 2, Duration.ofSeconds(1));
		LimitState before = meter.newState(0);
		acquire(before, 0, 1);
		acquire(before, 0, 1);
		LeakyBucket queue = new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(3)));
		LimitState after = queue.newState(0);
		queue.carryOver(meter, before, after, 0);
		assertThat(acquire(after, 0, 1).delayNanos()).isEqualTo(SECOND);
	}

	/**
	 * A store forgets a bucket idle for its idle timeout: a shaping token bucket's must
	 * cover paying back its deepest reservations, or a bucket forgotten with requests still
	 * held would admit a full burst more.
	 */
	@Test
	void aShapingTokenBucketStaysRememberedUntilItsReservationsArePaidBack() {
		TokenBucket shaping = new TokenBucket(1, 1, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(10)));
		LimitState state = shaping.newState(0);
		for (int i = 0; i < 11; i++) {
			acquire(state, 0, 1);
		}
		assertThat(shaping.idleTimeout()).isEqualTo(Duration.ofSeconds(11));
		assertThat(state.describe(10 * SECOND)).containsEntry("tokens", 0.0);
		assertThat(state.describe(11 * SECOND)).containsEntry("tokens", 1.0);
		assertThat(new TokenBucket(1, 1, Duration.ofSeconds(1)).idleTimeout()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void aShapingLeakyBucketNeedsToHoldSomething() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(1), 5)))
			.withMessageContaining("delay-after must be less than capacity (5)");
		assertThatIllegalArgumentException().isThrownBy(() -> new Shaping(Duration.ZERO))
			.withMessageContaining("max-delay");
	}

	private static Decision acquire(LimitState state, long nowNanos, long cost) {
		Decision decision = state.probe(nowNanos, cost);
		if (decision.allowed()) {
			state.commit(nowNanos, cost);
		}
		return decision;
	}

}
