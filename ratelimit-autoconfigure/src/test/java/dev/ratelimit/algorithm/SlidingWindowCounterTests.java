package dev.ratelimit.algorithm;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static dev.ratelimit.algorithm.TokenBucketTests.admit;
import static dev.ratelimit.algorithm.TokenBucketTests.admitted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class SlidingWindowCounterTests {

	private static final long SECOND = 1_000_000_000L;

	private static final long MINUTE = 60 * SECOND;

	private static final long MILLISECOND = 1_000_000L;

	@Test
	void workedExampleEstimatesSixty() {
		LimitState state = new SlidingWindowCounter(100, Duration.ofMinutes(1)).newState(0);
		assertThat(admitted(state, 0, 50)).isEqualTo(50);
		long fortyPercent = MINUTE + 24 * SECOND;
		admitted(state, MINUTE, 30);
		assertThat(state.describe(fortyPercent)).containsEntry("current", 30L)
			.containsEntry("previous", 50L)
			.containsEntry("estimate", 60.0);
		Decision decision = admit(state, fortyPercent, 1);
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.remaining()).isEqualTo(39);
	}

	@Test
	void admitsUpToTheLimitAndRemainingAgreesWithTheDecision() {
		LimitState state = new SlidingWindowCounter(10, Duration.ofSeconds(10)).newState(0);
		admitted(state, 0, 10);
		// 15s: estimate = 0 + 10 * 0.5 = 5
		long at = 15 * SECOND;
		for (int i = 0; i < 5; i++) {
			Decision decision = admit(state, at, 1);
			assertThat(decision.allowed()).isTrue();
			assertThat(decision.remaining()).isEqualTo(4 - i);
		}
		assertThat(state.probe(at, 1).allowed()).isFalse();
	}

	@Test
	void retryAfterWithinTheCurrentWindow() {
		LimitState state = new SlidingWindowCounter(10, Duration.ofSeconds(10)).newState(0);
		admitted(state, 0, 10);
		admitted(state, 15 * SECOND, 5);
		// estimate = 5 + 10 * (10 - e) / 10 must drop to 9: e = 6s, i.e. at 16s.
		Decision decision = state.probe(15 * SECOND, 1);
		assertThat(decision.allowed()).isFalse();
		assertThat(decision.retryAfterNanos()).isEqualTo(SECOND);
		assertThat(decision.resetNanos()).isEqualTo(decision.retryAfterNanos());
		assertThat(state.probe(16 * SECOND - MILLISECOND, 1).allowed()).isFalse();
		assertThat(state.probe(16 * SECOND, 1).allowed()).isTrue();
	}

	@Test
	void retryAfterInTheNextWindow() {
		LimitState state = new SlidingWindowCounter(10, Duration.ofSeconds(10)).newState(0);
		admitted(state, 2 * SECOND, 10);
		// Next window: estimate = 10 * (10 - e) / 10 must drop to 8: e = 2s, i.e. at 12s.
		Decision decision = state.probe(5 * SECOND, 2);
		assertThat(decision.allowed()).isFalse();
		assertThat(decision.retryAfterNanos()).isEqualTo(7 * SECOND);
		assertThat(decision.resetNanos()).isEqualTo(decision.retryAfterNanos());
		assertThat(state.probe(12 * SECOND - MILLISECOND, 2).allowed()).isFalse();
		assertThat(state.probe(12 * SECOND, 2).allowed()).isTrue();
	}

	@Test
	void resetIsWhenTheFallingEstimateLetsOneMoreUnitThrough() {
		LimitState state = new SlidingWindowCounter(10, Duration.ofSeconds(10)).newState(0);
		admitted(state, 0, 10);
		// 12s: the previous window weighs 10 * 0.8 = 8; one more makes 9, 1 left. The
		// weight falls by 1 a second, so a second unit is left 1s later.
		Decision decision = admit(state, 12 * SECOND, 1);
		assertThat(decision.remaining()).isEqualTo(1);
		assertThat(decision.resetNanos()).isEqualTo(SECOND);
		assertThat(state.probe(13 * SECOND, 0).remaining()).isEqualTo(2);
		// Idle, the estimate reaches 0 at 20s, then nothing is left to come back.
		assertThat(state.probe(21 * SECOND, 0).resetNanos()).isEqualTo(9 * SECOND);
		assertThat(state.probe(30 * SECOND, 0).resetNanos()).isZero();
	}

	@Test
	void boundaryBurstIsDamped() {
		LimitState state = new SlidingWindowCounter(100, Duration.ofMinutes(1)).newState(0);
		assertThat(admitted(state, MINUTE - SECOND / 2, 100)).isEqualTo(100);
		assertThat(admitted(state, MINUTE + SECOND / 2, 100)).isZero();
	}

	@Test
	void subSecondWindow() {
		LimitState state = new SlidingWindowCounter(4, Duration.ofMillis(500)).newState(0);
		assertThat(admitted(state, 0, 5)).isEqualTo(4);
		// 750ms: estimate = 4 * 0.5 = 2
		assertThat(admitted(state, 750_000_000L, 5)).isEqualTo(2);
		assertThat(state.probe(2 * SECOND, 0).remaining()).isEqualTo(4);
	}

	@Test
	void windowBoundariesAndLateReadings() {
		SlidingWindowCounter limit = new SlidingWindowCounter(10, Duration.ofSeconds(10));
		LimitState state = limit.newState(0);
		// 4 in the window: 7 fit once they weigh 3, 2.5s into the next window.
		assertThat(judged(limit, state, 0, 4)).isEqualTo(new Decision(true, 6, 10, 12_500 * MILLISECOND, 0));
		// The window's last nanosecond: still the same window.
		assertThat(judged(limit, state, 10 * SECOND - 1, 1)).isEqualTo(new Decision(true, 5, 10, 2 * SECOND + 1, 0));
		// Its first nanosecond: the 5 become the previous window, weighing 5 at once.
		assertThat(judged(limit, state, 10 * SECOND, 1)).isEqualTo(new Decision(true, 4, 10, 2 * SECOND, 0));
		// A late reading counts in the current window, at its start, and never moves it
		// back.
		assertThat(judged(limit, state, 10 * SECOND - 1, 1)).isEqualTo(new Decision(true, 3, 10, 2 * SECOND, 0));
		assertThat(state.describe(10 * SECOND)).containsEntry("current", 2L).containsEntry("previous", 5L);
		// Two windows on: both counts forgotten.
		assertThat(judged(limit, state, 30 * SECOND, 1)).isEqualTo(new Decision(true, 9, 10, 20 * SECOND, 0));
		assertThat(state.describe(30 * SECOND)).containsEntry("current", 1L).containsEntry("previous", 0L);
	}

	@Test
	void aCostAboveTheLimitIsToldWhenTheEstimateIsZero() {
		SlidingWindowCounter limit = new SlidingWindowCounter(10, Duration.ofSeconds(10));
		LimitState state = limit.newState(0);
		assertThat(judged(limit, state, 0, 0)).isEqualTo(new Decision(true, 10, 10, 0, 0));
		assertThat(judged(limit, state, 0, 11)).isEqualTo(Decision.rejected(10, 10, 0));
		judged(limit, state, 30 * SECOND, 1);
		// The current count weighs until the end of the next window.
		assertThat(judged(limit, state, 35 * SECOND, 11)).isEqualTo(Decision.rejected(9, 10, 15 * SECOND));
		// Only the previous count left: it weighs until the end of this window.
		assertThat(judged(limit, state, 43 * SECOND, 11)).isEqualTo(Decision.rejected(9, 10, 7 * SECOND));
		assertThat(state.describe(43 * SECOND)).containsEntry("current", 0L).containsEntry("previous", 1L);
	}

	/**
	 * The decision of {@code limit} for {@code cost} units at {@code now}, consumed when
	 * allowed, after checking that probing it first decides the same.
	 */
	static Decision judged(Limit limit, LimitState state, long now, long cost) {
		Decision probed = state.probe(now, cost);
		Decision decided = limit.tryAcquire(state, now, cost);
		assertThat(decided).isEqualTo(probed);
		return decided;
	}

	@Test
	void idleTimeoutIsTwoWindows() {
		SlidingWindowCounter limit = new SlidingWindowCounter(5, Duration.ofSeconds(3));
		assertThat(limit.idleTimeout()).isEqualTo(Duration.ofSeconds(6));
		assertThat(limit.window()).isEqualTo(Duration.ofSeconds(3));
		assertThat(limit.parameters()).hasToString("{limit=5, window=PT3S}");
	}

	@Test
	void invalidParametersAreNamed() {
		assertThatIllegalArgumentException().isThrownBy(() -> new SlidingWindowCounter(-3, Duration.ofSeconds(1)))
			.withMessage("limit must be positive but was -3");
		assertThatIllegalArgumentException().isThrownBy(() -> new SlidingWindowCounter(1, null))
			.withMessage("window must be set");
	}

}
