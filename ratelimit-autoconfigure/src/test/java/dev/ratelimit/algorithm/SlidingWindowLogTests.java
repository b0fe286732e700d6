package dev.ratelimit.algorithm;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static dev.ratelimit.algorithm.SlidingWindowCounterTests.judged;
import static dev.ratelimit.algorithm.TokenBucketTests.admit;
import static dev.ratelimit.algorithm.TokenBucketTests.admitted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class SlidingWindowLogTests {

	private static final long SECOND = 1_000_000_000L;

	private static final long MINUTE = 60 * SECOND;

	private static final long MILLISECOND = 1_000_000L;

	@Test
	void noBoundaryBurst() {
		LimitState state = new SlidingWindowLog(100, Duration.ofMinutes(1)).newState(0);
		assertThat(admitted(state, MINUTE - SECOND / 2, 100)).isEqualTo(100);
		assertThat(admitted(state, MINUTE + SECOND / 2, 100)).isZero();
		assertThat(admitted(state, 2 * MINUTE - SECOND / 2, 100)).isEqualTo(100);
	}

	@Test
	void entryIsLiveUntilExactlyOneWindowLater() {
		LimitState state = new SlidingWindowLog(1, Duration.ofSeconds(1)).newState(0);
		admit(state, 0, 1);
		assertThat(state.probe(SECOND - 1, 1).allowed()).isFalse();
		assertThat(state.probe(SECOND, 1).allowed()).isTrue();
	}

	@Test
	void retryAfterIsWhenEnoughOldestEntriesExpireAndResetWhenTheOldestDoes() {
		LimitState state = new SlidingWindowLog(3, Duration.ofSeconds(10)).newState(0);
		assertThat(admit(state, 0, 1).resetNanos()).isEqualTo(10 * SECOND);
		admit(state, 2 * SECOND, 1);
		Decision last = admit(state, 5 * SECOND, 1);
		assertThat(last.remaining()).isZero();
		assertThat(last.resetNanos()).isEqualTo(5 * SECOND);
		Decision one = state.probe(6 * SECOND, 1);
		assertThat(one.allowed()).isFalse();
		assertThat(one.retryAfterNanos()).isEqualTo(4 * SECOND);
		assertThat(one.resetNanos()).isEqualTo(one.retryAfterNanos());
		assertThat(state.probe(6 * SECOND, 2).retryAfterNanos()).isEqualTo(6 * SECOND);
		assertThat(state.probe(6 * SECOND, 4).retryAfterNanos()).isEqualTo(9 * SECOND);
		assertThat(state.probe(20 * SECOND, 0).resetNanos()).isZero();
	}

	@Test
	void costAboveOneAddsThatManyEntries() {
		LimitState state = new SlidingWindowLog(10, Duration.ofSeconds(1)).newState(0);
		assertThat(admit(state, 0, 4).remaining()).isEqualTo(6);
		assertThat(admit(state, SECOND / 2, 6).remaining()).isZero();
		assertThat(state.describe(SECOND / 2)).containsEntry("logSize", 10);
		assertThat(state.describe(SECOND)).containsEntry("logSize", 6);
		assertThat(state.probe(SECOND, 5).retryAfterNanos()).isEqualTo(SECOND / 2);
	}

	@Test
	void logGrowsAndWrapsWithoutLosingOrder() {
		LimitState state = new SlidingWindowLog(1000, Duration.ofMillis(500)).newState(0);
		long millisecond = SECOND / 1000;
		for (long ms = 0; ms < 5000; ms++) {
			assertThat(admit(state, ms * millisecond, 1).allowed()).isTrue();
			long live = Math.min(ms + 1, 500);
			assertThat(state.probe(ms * millisecond, 0).remaining()).as("remaining at %dms", ms).isEqualTo(1000 - live);
		}
	}

	@Test
	void ringWrapsAroundWithoutLosingOrder() {
		SlidingWindowLog limit = new SlidingWindowLog(4, Duration.ofSeconds(10));
		LimitState state = limit.newState(0);
		assertThat(judged(limit, state, 0, 1)).isEqualTo(new Decision(true, 3, 4, 10 * SECOND, 0));
		assertThat(judged(limit, state, SECOND, 1)).isEqualTo(new Decision(true, 2, 4, 9 * SECOND, 0));
		judged(limit, state, 2 * SECOND, 1);
		assertThat(judged(limit, state, 3 * SECOND, 1)).isEqualTo(new Decision(true, 0, 4, 7 * SECOND, 0));
		// The entry of 0s expires; the new one goes in its place, at the ring's start.
		assertThat(judged(limit, state, 10 * SECOND, 1)).isEqualTo(new Decision(true, 0, 4, SECOND, 0));
		// Log: 1s, 2s, 3s, then 10s at the start of the ring.
		assertThat(judged(limit, state, 10 * SECOND + SECOND / 2, 2))
			.isEqualTo(Decision.rejected(0, 4, 1500 * MILLISECOND));
		assertThat(judged(limit, state, 10 * SECOND + SECOND / 2, 5))
			.isEqualTo(Decision.rejected(0, 4, 9500 * MILLISECOND));
		// Two units at once, written across the ring's end.
		assertThat(judged(limit, state, 12 * SECOND, 2)).isEqualTo(new Decision(true, 0, 4, SECOND, 0));
		// The head wraps too.
		assertThat(judged(limit, state, 13 * SECOND, 1)).isEqualTo(new Decision(true, 0, 4, 7 * SECOND, 0));
		assertThat(judged(limit, state, 13 * SECOND, 1)).isEqualTo(Decision.rejected(0, 4, 7 * SECOND));
		assertThat(state.describe(22 * SECOND - 1)).containsEntry("logSize", 3);
		assertThat(state.describe(22 * SECOND)).containsEntry("logSize", 1);
	}

	@Test
	void aLateReadingIsLoggedAtTheNewestInstant() {
		SlidingWindowLog limit = new SlidingWindowLog(20, Duration.ofSeconds(10));
		LimitState state = limit.newState(0);
		judged(limit, state, 5 * SECOND, 7);
		// One unit into the room left, then one that grows the log: both late.
		assertThat(judged(limit, state, 4 * SECOND, 1)).isEqualTo(new Decision(true, 12, 20, 11 * SECOND, 0));
		assertThat(judged(limit, state, 4 * SECOND, 1)).isEqualTo(new Decision(true, 11, 20, 11 * SECOND, 0));
		// The newest two, logged at 5s, leave 11s after this reading.
		assertThat(judged(limit, state, 4 * SECOND, 19)).isEqualTo(Decision.rejected(11, 20, 11 * SECOND));
		assertThat(judged(limit, state, 4 * SECOND, 20)).isEqualTo(Decision.rejected(11, 20, 11 * SECOND));
		assertThat(state.describe(15 * SECOND - 1)).containsEntry("logSize", 9);
		assertThat(state.describe(15 * SECOND)).containsEntry("logSize", 0);
		// Nothing asked of an empty log: nothing to come back.
		assertThat(judged(limit, state, 15 * SECOND, 0)).isEqualTo(new Decision(true, 20, 20, 0, 0));
		assertThat(state.describe(15 * SECOND)).containsEntry("logSize", 0);
	}

	@Test
	void describesItself() {
		SlidingWindowLog limit = new SlidingWindowLog(5, Duration.ofMillis(500));
		assertThat(limit.algorithm()).isEqualTo(Algorithm.SLIDING_WINDOW_LOG);
		assertThat(limit.window()).isEqualTo(Duration.ofMillis(500));
		assertThat(limit.idleTimeout()).isEqualTo(Duration.ofMillis(500));
		assertThat(limit.parameters()).hasToString("{limit=5, window=PT0.5S}");
	}

	@Test
	void invalidParametersAreNamed() {
		assertThatIllegalArgumentException().isThrownBy(() -> new SlidingWindowLog(0, Duration.ofSeconds(1)))
			.withMessage("limit must be positive but was 0");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new SlidingWindowLog(Long.MAX_VALUE, Duration.ofSeconds(1)))
			.withMessageContaining("limit must be at most");
		assertThatIllegalArgumentException().isThrownBy(() -> new SlidingWindowLog(1, Duration.ofMillis(-5)))
			.withMessage("window must be a positive duration but was PT-0.005S");
	}

}
