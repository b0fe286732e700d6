package dev.ratelimit.algorithm;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class VerdictTests {

	private static final long SECOND = 1_000_000_000L;

	@Test
	void allowedReportsTheLimitWithLeastRemainingInAbsoluteUnits() {
		// 10 per 2s with 1 left, 30 per day with 21 left: 21/30 is a larger share than
		// 1/10, and only 1 more request will pass.
		Decision perTwoSeconds = new Decision(true, 1, 10, 2 * SECOND, 0);
		Decision perDay = new Decision(true, 21, 30, 80_000 * SECOND, 0);
		Verdict verdict = Verdict.of(perDay, perTwoSeconds);
		assertThat(verdict.allowed()).isTrue();
		assertThat(verdict.reportedIndex()).isEqualTo(1);
		assertThat(verdict.reported()).isSameAs(perTwoSeconds);
		assertThat(verdict.reportOrder()).containsExactly(1, 0);
		assertThat(verdict.retryAfterNanos()).isZero();
		assertThat(verdict.fallback()).isFalse();
		assertThat(verdict.limitCount()).isEqualTo(2);
		assertThat(verdict.decision(0)).isSameAs(perDay);
	}

	@Test
	void ofEqualRemainingTheFurthestResetIsReported() {
		Decision soon = new Decision(true, 5, 10, SECOND, 0);
		Decision late = new Decision(true, 5, 1000, 3600 * SECOND, 0);
		Decision alsoSoon = new Decision(true, 5, 20, SECOND, 0);
		Verdict verdict = Verdict.of(soon, late, alsoSoon);
		assertThat(verdict.reportedIndex()).isEqualTo(1);
		assertThat(verdict.reportOrder()).containsExactly(1, 0, 2);
	}

	@Test
	void rejectedReportsARejectingLimitAndRetriesOnceEveryLimitAdmits() {
		Decision allowedButEmpty = new Decision(true, 0, 10, 90 * SECOND, 0);
		Decision soon = Decision.rejected(0, 100, 7 * SECOND);
		Decision late = Decision.rejected(0, 10_000, 30 * SECOND);
		Verdict verdict = Verdict.of(allowedButEmpty, soon, late);
		assertThat(verdict.allowed()).isFalse();
		assertThat(verdict.reportedIndex()).isEqualTo(2);
		assertThat(verdict.reported().resetNanos()).isEqualTo(verdict.retryAfterNanos()).isEqualTo(30 * SECOND);
		assertThat(verdict.retryAfterSeconds()).isEqualTo(30);
		assertThat(verdict.reportOrder()).containsExactly(2, 1, 0);
	}

	@Test
	void aRejectionsResetIsItsRetryAfter() {
		Decision rejected = Decision.rejected(3, 10, 1);
		assertThat(rejected.allowed()).isFalse();
		assertThat(rejected.resetNanos()).isEqualTo(rejected.retryAfterNanos()).isEqualTo(1);
		assertThat(rejected.resetSeconds()).isEqualTo(rejected.retryAfterSeconds()).isEqualTo(1);
	}

	@Test
	void aFailureModesVerdictReportsNoLimit() {
		Verdict denied = Verdict.withoutLimits(false, 5 * SECOND);
		assertThat(denied.fallback()).isTrue();
		assertThat(denied.limitCount()).isZero();
		assertThat(denied.reportedIndex()).isEqualTo(-1);
		assertThat(denied.reported()).isNull();
		assertThat(denied.retryAfterSeconds()).isEqualTo(5);
		assertThat(Verdict.withoutLimits(true, 5 * SECOND).retryAfterNanos()).isZero();
	}

	@Test
	void asFallbackKeepsTheDecisions() {
		Verdict verdict = Verdict.of(new Decision(true, 4, 5, SECOND, 0)).asFallback();
		assertThat(verdict.fallback()).isTrue();
		assertThat(verdict.reported().remaining()).isEqualTo(4);
	}

	@Test
	void needsADecision() {
		assertThatIllegalArgumentException().isThrownBy(Verdict::of)
			.withMessage("a verdict needs at least one decision");
	}

}
