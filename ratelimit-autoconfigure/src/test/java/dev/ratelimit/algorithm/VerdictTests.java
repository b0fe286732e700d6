package dev.ratelimit.algorithm;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class VerdictTests {

	@Test
	void allowedReportsTheLimitWithLeastRemainingRelativeToItsQuota() {
		Decision perSecond = new Decision(true, 5, 10, 1, 0);
		Decision perDay = new Decision(true, 400, 10_000, 9, 0);
		Verdict verdict = Verdict.of(new Decision[] { perSecond, perDay });
		assertThat(verdict.allowed()).isTrue();
		assertThat(verdict.reportedIndex()).isEqualTo(1);
		assertThat(verdict.reported()).isSameAs(perDay);
		assertThat(verdict.retryAfterNanos()).isZero();
		assertThat(verdict.fallback()).isFalse();
	}

	@Test
	void rejectedReportsTheRejectingLimitThatFreesUpLast() {
		Decision allowedButLow = new Decision(true, 0, 10, 1, 0);
		Decision soon = new Decision(false, 0, 100, 50, 7);
		Decision late = new Decision(false, 0, 10_000, 90, 30);
		Verdict verdict = Verdict.of(new Decision[] { allowedButLow, soon, late });
		assertThat(verdict.allowed()).isFalse();
		assertThat(verdict.reportedIndex()).isEqualTo(2);
		assertThat(verdict.reported()).isSameAs(late);
		assertThat(verdict.retryAfterNanos()).isEqualTo(30);
	}

	@Test
	void firstOfEqualLimitsIsReported() {
		Decision a = new Decision(true, 1, 2, 1, 0);
		Decision b = new Decision(true, 5, 10, 1, 0);
		assertThat(Verdict.of(new Decision[] { a, b }).reportedIndex()).isZero();
	}

}
