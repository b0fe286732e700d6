package dev.ratelimit.store.caffeine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import org.junit.jupiter.api.Test;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.testsupport.Concurrently;

import static org.assertj.core.api.Assertions.assertThat;

class BucketLocksTests {

	private static final BucketGroup TIER = new BucketGroup("orders",
			new Tier("anonymous", List.of(new FixedWindow(5, Duration.ofMinutes(1)))), new LongAdder());

	private long counted;

	@Test
	void threadsHoldingABucketsLockNeverOverlap() throws Exception {
		CaffeineBucket bucket = CaffeineBucket.create(TIER, "10.0.0.1", 0);
		// Many more threads than processors, so that holders are descheduled mid-section
		// and waiters pass through spinning into yielding.
		Concurrently.run(16, (thread) -> {
			for (int i = 0; i < 20_000; i++) {
				int lock = BucketLocks.lock(bucket);
				try {
					// Read, then write: an overlapping holder would lose an update.
					long seen = this.counted;
					Thread.onSpinWait();
					this.counted = seen + 1;
				}
				finally {
					BucketLocks.unlock(lock);
				}
			}
		});
		assertThat(this.counted).isEqualTo(16 * 20_000);
	}

	@Test
	void aBucketsLockIsTheSameOnEveryCall() {
		CaffeineBucket bucket = CaffeineBucket.create(TIER, "10.0.0.1", 0);
		int lock = BucketLocks.lock(bucket);
		BucketLocks.unlock(lock);
		int again = BucketLocks.lock(bucket);
		BucketLocks.unlock(again);
		assertThat(again).isEqualTo(lock);
	}

}
