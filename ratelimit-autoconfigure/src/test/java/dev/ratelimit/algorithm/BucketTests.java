package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class BucketTests {

	private static final long SECOND = 1_000_000_000L;

	@Test
	void rejectionBySecondLimitConsumesNothingFromTheFirst() {
		Bucket bucket = Bucket.of(List.of(new TokenBucket(10, 1, Duration.ofSeconds(1)),
				new FixedWindow(2, Duration.ofMinutes(1))), 0);
		assertThat(bucket.tryAcquire(0, 1).allowed()).isTrue();
		assertThat(bucket.tryAcquire(0, 1).allowed()).isTrue();
		Verdict rejected = bucket.tryAcquire(0, 1);
		assertThat(rejected.allowed()).isFalse();
		assertThat(rejected.reportedIndex()).isEqualTo(1);
		assertThat(rejected.retryAfterNanos()).isEqualTo(60 * SECOND);
		assertThat(bucket.describe(0, 0)).containsEntry("tokens", 8.0);
		assertThat(bucket.peek(0, 0).remaining()).isEqualTo(8);
		assertThat(bucket.describe(1, 0)).containsEntry("count", 2L);
	}

	@Test
	void admissionConsumesFromEveryLimit() {
		Bucket bucket = Bucket.of(List.of(new TokenBucket(10, 1, Duration.ofSeconds(1)),
				new SlidingWindowLog(100, Duration.ofMinutes(1))), 0);
		Verdict verdict = bucket.tryAcquire(0, 3);
		assertThat(verdict.allowed()).isTrue();
		assertThat(verdict.reportedIndex()).isZero();
		assertThat(verdict.reported().remaining()).isEqualTo(7);
		assertThat(bucket.peek(1, 0).remaining()).isEqualTo(97);
	}

	@Test
	void countsEveryRequestJudged() {
		Bucket bucket = Bucket.of(List.of(new FixedWindow(1, Duration.ofSeconds(1))), 0);
		bucket.tryAcquire(0, 1);
		bucket.tryAcquire(0, 1);
		bucket.tryAcquire(0, 1);
		assertThat(bucket.requests()).isEqualTo(3);
		assertThat(bucket.limits()).hasSize(1);
	}

	@Test
	void needsALimit() {
		assertThatIllegalArgumentException().isThrownBy(() -> Bucket.of(List.of(), 0))
			.withMessage("a bucket needs at least one limit");
	}

}
