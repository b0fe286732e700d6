package dev.ratelimit.algorithm;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static dev.ratelimit.algorithm.TokenBucketTests.admit;
import static dev.ratelimit.algorithm.TokenBucketTests.admitted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class FixedWindowTests {

	private static final long SECOND = 1_000_000_000L;

	private static final long MINUTE = 60 * SECOND;

	@Test
	void workedExampleAdmitsTheLimitPerWindow() {
		LimitState state = new FixedWindow(100, Duration.ofMinutes(1)).newState(0);
		assertThat(admitted(state, 10 * SECOND, 101)).isEqualTo(100);
		assertThat(admitted(state, MINUTE, 101)).isEqualTo(100);
	}

	@Test
	void boundaryBurstAdmitsTwiceTheLimitWithinOneSecond() {
		LimitState state = new FixedWindow(100, Duration.ofMinutes(1)).newState(0);
		long justBeforeBoundary = MINUTE - SECOND / 2;
		long justAfterBoundary = MINUTE + SECOND / 2;
		int admitted = admitted(state, justBeforeBoundary, 100) + admitted(state, justAfterBoundary, 100);
		assertThat(admitted).isEqualTo(200);
	}

	@Test
	void resetAndRetryAfterAreTheEndOfTheWindow() {
		LimitState state = new FixedWindow(2, Duration.ofMinutes(1)).newState(0);
		Decision first = admit(state, 15 * SECOND, 1);
		assertThat(first.remaining()).isEqualTo(1);
		assertThat(first.resetNanos()).isEqualTo(45 * SECOND);
		admit(state, 20 * SECOND, 1);
		Decision rejected = state.probe(50 * SECOND, 1);
		assertThat(rejected.allowed()).isFalse();
		assertThat(rejected.remaining()).isZero();
		assertThat(rejected.retryAfterNanos()).isEqualTo(10 * SECOND);
		assertThat(rejected.resetNanos()).isEqualTo(10 * SECOND);
	}

	@Test
	void windowsAreAlignedOnTheClockTimelineEvenBeforeZero() {
		LimitState state = new FixedWindow(1, Duration.ofMillis(500)).newState(-700_000_000L);
		Decision first = admit(state, -700_000_000L, 1);
		assertThat(first.resetNanos()).isEqualTo(200_000_000L);
		assertThat(state.probe(-500_000_001L, 1).allowed()).isFalse();
		assertThat(admit(state, -500_000_000L, 1).allowed()).isTrue();
		assertThat(admit(state, -1, 1).allowed()).isFalse();
		assertThat(admit(state, 0, 1).allowed()).isTrue();
	}

	@Test
	void subSecondWindow() {
		LimitState state = new FixedWindow(3, Duration.ofMillis(500)).newState(0);
		assertThat(admitted(state, 0, 5)).isEqualTo(3);
		assertThat(state.probe(SECOND / 10, 1).retryAfterNanos()).isEqualTo(400_000_000L);
		assertThat(admitted(state, SECOND / 2, 5)).isEqualTo(3);
	}

	@Test
	void costAboveOneCountsThatManyUnits() {
		LimitState state = new FixedWindow(10, Duration.ofSeconds(1)).newState(0);
		assertThat(admit(state, 0, 7).remaining()).isEqualTo(3);
		assertThat(state.probe(0, 4).allowed()).isFalse();
		assertThat(admit(state, 0, 3).remaining()).isZero();
		assertThat(state.describe(0)).containsEntry("count", 10L);
	}

	@Test
	void idleWindowIsFull() {
		LimitState state = new FixedWindow(10, Duration.ofSeconds(1)).newState(0);
		Decision idle = state.probe(0, 0);
		assertThat(idle.remaining()).isEqualTo(10);
		assertThat(idle.resetNanos()).isZero();
	}

	@Test
	void describesItself() {
		FixedWindow limit = new FixedWindow(100, Duration.ofMinutes(1));
		assertThat(limit.algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
		assertThat(limit.quota()).isEqualTo(100);
		assertThat(limit.window()).isEqualTo(Duration.ofMinutes(1));
		assertThat(limit.idleTimeout()).isEqualTo(Duration.ofMinutes(1));
		assertThat(limit.parameters()).hasToString("{limit=100, window=PT1M}");
	}

	@Test
	void invalidParametersAreNamed() {
		assertThatIllegalArgumentException().isThrownBy(() -> new FixedWindow(0, Duration.ofSeconds(1)))
			.withMessage("limit must be positive but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> new FixedWindow(1, Duration.ZERO))
			.withMessage("window must be a positive duration but was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> new FixedWindow(1, Duration.ofDays(365L * 1000)))
			.withMessageStartingWith("window must be at most ");
	}

}
