package dev.ratelimit.algorithm;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static dev.ratelimit.algorithm.TokenBucketTests.admit;
import static dev.ratelimit.algorithm.TokenBucketTests.admitted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class LeakyBucketTests {

	private static final long SECOND = 1_000_000_000L;

	@Test
	void queueFillsToCapacityThenDrainsAtTheRate() {
		LimitState state = new LeakyBucket(5, 1, Duration.ofSeconds(1)).newState(0);
		assertThat(admitted(state, 0, 6)).isEqualTo(5);
		assertThat(state.describe(0)).containsEntry("level", 5.0);
		assertThat(admitted(state, SECOND, 2)).isEqualTo(1);
	}

	@Test
	void fractionalDrainsAreKept() {
		LimitState state = new LeakyBucket(2, 1, Duration.ofSeconds(1)).newState(0);
		admitted(state, 0, 2);
		// Pseudocode that drains whole units would floor each of these half-second drains to 0.
		assertThat(state.describe(SECOND / 2)).containsEntry("level", 1.5);
		assertThat(state.describe(SECOND)).containsEntry("level", 1.0);
		assertThat(admitted(state, SECOND, 2)).isEqualTo(1);
	}

	@Test
	void retryAfterIsWhenAQueueSlotFreesUp() {
		LimitState state = new LeakyBucket(4, 2, Duration.ofSeconds(1)).newState(0);
		admitted(state, 0, 4);
		Decision decision = state.probe(SECOND / 10, 1);
		assertThat(decision.allowed()).isFalse();
		assertThat(decision.retryAfterNanos()).isEqualTo(SECOND / 2 - SECOND / 10);
		assertThat(decision.resetNanos()).isEqualTo(decision.retryAfterNanos());
		assertThat(state.probe(SECOND / 10, 3).retryAfterNanos()).isEqualTo(7 * SECOND / 5);
	}

	@Test
	void allowedDecisionDescribesStateAfterCommit() {
		LimitState state = new LeakyBucket(4, 2, Duration.ofSeconds(1)).newState(0);
		Decision decision = state.probe(0, 3);
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.remaining()).isEqualTo(1);
		// One more slot frees up once one unit drains, at 2 per second.
		assertThat(decision.resetNanos()).isEqualTo(SECOND / 2);
		assertThat(state.probe(0, 0).remaining()).isEqualTo(4);
	}

	@Test
	void onePerMinute() {
		LimitState state = new LeakyBucket(1, 1, Duration.ofMinutes(1)).newState(0);
		assertThat(admit(state, 0, 1).allowed()).isTrue();
		assertThat(state.probe(20 * SECOND, 1).retryAfterNanos()).isEqualTo(40 * SECOND);
		assertThat(admit(state, 60 * SECOND, 1).allowed()).isTrue();
	}

	@Test
	void windowIsTheTimeAFullQueueTakesToDrain() {
		LeakyBucket bucket = new LeakyBucket(10, 0.5, Duration.ofSeconds(1));
		assertThat(bucket.window()).isEqualTo(Duration.ofSeconds(20));
		assertThat(bucket.idleTimeout()).isEqualTo(Duration.ofSeconds(20));
		assertThat(bucket.quota()).isEqualTo(10);
		assertThat(bucket.parameters()).containsOnlyKeys("capacity", "drain-rate", "drain-period");
	}

	@Test
	void invalidParametersAreNamed() {
		assertThatIllegalArgumentException().isThrownBy(() -> new LeakyBucket(-1, 1, Duration.ofSeconds(1)))
			.withMessage("capacity must be positive but was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> new LeakyBucket(1, -2.5, Duration.ofSeconds(1)))
			.withMessage("drain-rate must be a positive number but was -2.5");
		assertThatIllegalArgumentException().isThrownBy(() -> new LeakyBucket(1, 1, Duration.ofSeconds(-1)))
			.withMessage("drain-period must be a positive duration but was PT-1S");
	}

}
