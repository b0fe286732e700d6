package dev.ratelimit.algorithm;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class TokenBucketTests {

	private static final long SECOND = 1_000_000_000L;

	private static final long MILLISECOND = 1_000_000L;

	@Test
	void workedExampleBurstsThenRefillsAtTwoPerSecond() {
		LimitState state = new TokenBucket(10, 2, Duration.ofSeconds(1)).newState(0);
		assertThat(admitted(state, 0, 10)).isEqualTo(10);
		assertThat(admitted(state, SECOND, 3)).isEqualTo(2);
		// A widely copied version of this example says "t=5: 8 more tokens refilled -> 10 available", but 4 seconds
		// at 2/s after an empty bucket refill 8: the bucket is full (capped) at t=6.
		assertThat(admitted(state, 5 * SECOND, 11)).isEqualTo(8);
		assertThat(state.describe(10 * SECOND)).containsEntry("tokens", 10.0);
		assertThat(admitted(state, 10 * SECOND, 11)).isEqualTo(10);
	}

	@Test
	void wholePeriodRefillsExactlyTheRate() {
		LimitState state = new TokenBucket(3, 3, Duration.ofSeconds(1)).newState(0);
		admitted(state, 0, 3);
		Decision decision = state.probe(SECOND, 0);
		assertThat(decision.remaining()).isEqualTo(3);
		assertThat(decision.resetNanos()).isZero();
	}

	@Test
	void allowedDecisionDescribesStateAfterCommit() {
		LimitState state = new TokenBucket(10, 2, Duration.ofSeconds(1)).newState(0);
		Decision decision = state.probe(0, 1);
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.remaining()).isEqualTo(9);
		assertThat(decision.limit()).isEqualTo(10);
		assertThat(decision.resetNanos()).isEqualTo(SECOND / 2);
	}

	@Test
	void resetIsWhenTheNextWholeTokenArrivesNotWhenTheBucketIsFull() {
		LimitState state = new TokenBucket(10, 2, Duration.ofSeconds(1)).newState(0);
		admitted(state, 0, 10);
		// 0.75s later 1.5 tokens: one used, half a token left until the next.
		Decision decision = admit(state, 3 * SECOND / 4, 1);
		assertThat(decision.remaining()).isZero();
		assertThat(decision.resetNanos()).isEqualTo(SECOND / 4);
		assertThat(state.probe(SECOND, 0).remaining()).isEqualTo(1);
	}

	@Test
	void retryAfterIsWhenTheMissingTokensRefill() {
		LimitState state = new TokenBucket(10, 2, Duration.ofSeconds(1)).newState(0);
		admitted(state, 0, 10);
		Decision oneUnit = state.probe(0, 1);
		assertThat(oneUnit.allowed()).isFalse();
		assertThat(oneUnit.remaining()).isZero();
		assertThat(oneUnit.retryAfterNanos()).isEqualTo(SECOND / 2);
		assertThat(oneUnit.resetNanos()).isEqualTo(oneUnit.retryAfterNanos());
		assertThat(state.probe(SECOND / 4, 3).retryAfterNanos()).isEqualTo(SECOND + SECOND / 4);
		assertThat(state.probe(SECOND / 2 - MILLISECOND, 1).allowed()).isFalse();
		assertThat(state.probe(SECOND / 2, 1).allowed()).isTrue();
	}

	@Test
	void onePerMinuteRefillsContinuously() {
		LimitState state = new TokenBucket(1, 1, Duration.ofMinutes(1)).newState(0);
		assertThat(admitted(state, 0, 2)).isEqualTo(1);
		Decision decision = state.probe(30 * SECOND, 1);
		assertThat(decision.allowed()).isFalse();
		assertThat(decision.retryAfterNanos()).isEqualTo(30 * SECOND);
		assertThat(state.describe(30 * SECOND)).containsEntry("tokens", 0.5);
		assertThat(admitted(state, 60 * SECOND, 2)).isEqualTo(1);
	}

	@Test
	void halfPerSecondTakesTwoSecondsPerToken() {
		LimitState state = new TokenBucket(2, 0.5, Duration.ofSeconds(1)).newState(0);
		assertThat(admitted(state, 0, 3)).isEqualTo(2);
		assertThat(state.probe(0, 1).retryAfterNanos()).isEqualTo(2 * SECOND);
		assertThat(admitted(state, 2 * SECOND, 2)).isEqualTo(1);
	}

	@Test
	void costAboveOneTakesThatManyTokens() {
		LimitState state = new TokenBucket(10, 2, Duration.ofSeconds(1)).newState(0);
		assertThat(admit(state, 0, 4).remaining()).isEqualTo(6);
		assertThat(admit(state, 0, 6).remaining()).isZero();
		assertThat(state.probe(0, 4).retryAfterNanos()).isEqualTo(2 * SECOND);
	}

	@Test
	void neverHoldsMoreThanCapacity() {
		LimitState state = new TokenBucket(5, 1, Duration.ofSeconds(1)).newState(0);
		assertThat(state.describe(1000 * SECOND)).containsEntry("tokens", 5.0);
	}

	@Test
	void windowIsTheTimeFromEmptyToFull() {
		TokenBucket bucket = new TokenBucket(10, 2, Duration.ofSeconds(1));
		assertThat(bucket.window()).isEqualTo(Duration.ofSeconds(5));
		assertThat(bucket.idleTimeout()).isEqualTo(Duration.ofSeconds(5));
		assertThat(bucket.quota()).isEqualTo(10);
		assertThat(bucket.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
		assertThat(bucket.parameters()).containsExactly(org.assertj.core.api.Assertions.entry("capacity", 10L),
				org.assertj.core.api.Assertions.entry("refill-rate", 2.0),
				org.assertj.core.api.Assertions.entry("refill-period", Duration.ofSeconds(1)));
	}

	@Test
	void invalidParametersAreNamed() {
		assertThatIllegalArgumentException().isThrownBy(() -> new TokenBucket(0, 1, Duration.ofSeconds(1)))
			.withMessage("capacity must be positive but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> new TokenBucket(1, 0, Duration.ofSeconds(1)))
			.withMessage("refill-rate must be a positive number but was 0.0");
		assertThatIllegalArgumentException().isThrownBy(() -> new TokenBucket(1, Double.NaN, Duration.ofSeconds(1)))
			.withMessage("refill-rate must be a positive number but was NaN");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new TokenBucket(1, Double.POSITIVE_INFINITY, Duration.ofSeconds(1)))
			.withMessage("refill-rate must be a positive number but was Infinity");
		assertThatIllegalArgumentException().isThrownBy(() -> new TokenBucket(1, 1, Duration.ZERO))
			.withMessage("refill-period must be a positive duration but was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> new TokenBucket(1, 1, null))
			.withMessage("refill-period must be set");
	}

	static Decision admit(LimitState state, long now, long cost) {
		Decision decision = state.probe(now, cost);
		if (decision.allowed()) {
			state.commit(now, cost);
		}
		return decision;
	}

	static int admitted(LimitState state, long now, int requests) {
		int admitted = 0;
		for (int i = 0; i < requests; i++) {
			if (admit(state, now, 1).allowed()) {
				admitted++;
			}
		}
		return admitted;
	}

}
