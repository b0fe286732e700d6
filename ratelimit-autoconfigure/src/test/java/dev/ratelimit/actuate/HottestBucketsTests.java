package dev.ratelimit.actuate;

import java.util.List;

import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import org.junit.jupiter.api.Test;

import static dev.ratelimit.testsupport.FixedSnapshotsInspector.fixedWindow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link HottestBuckets}.
 */
class HottestBucketsTests {

	@Test
	void keepsTheBucketsWithMostRequestsWhateverTheOrderTheyArriveIn() {
		HottestBuckets hottest = new HottestBuckets(3);
		for (long requests : new long[] { 4, 9, 1, 7, 3, 8, 2 }) {
			hottest.offer(bucket("k" + requests, requests, 60, 30));
		}
		assertThat(hottest.hottestFirst()).extracting(BucketSnapshot::requests).containsExactly(9L, 8L, 7L);
	}

	@Test
	void breaksTiesByClosenessToExhaustionAcrossAllLimits() {
		HottestBuckets hottest = new HottestBuckets(2);
		hottest.offer(bucket("half", 5, 10, 5));
		hottest.offer(bucket("full", 5, 10, 10));
		hottest.offer(new BucketSnapshot(new BucketId("p", "t", "second-limit-exhausted"), 5,
				List.of(fixedWindow(10, 9), fixedWindow(1000, 0))));
		assertThat(hottest.hottestFirst()).extracting((bucket) -> bucket.id().key())
			.containsExactly("second-limit-exhausted", "half");
	}

	@Test
	void keepsFewerWhenThereAreFewer() {
		HottestBuckets hottest = new HottestBuckets(100);
		hottest.offer(bucket("only", 1, 10, 9));
		assertThat(hottest.hottestFirst()).hasSize(1);
	}

	@Test
	void rejectsNonPositiveCapacity() {
		assertThatIllegalArgumentException().isThrownBy(() -> new HottestBuckets(0));
	}

	private static BucketSnapshot bucket(String key, long requests, long limit, long remaining) {
		return new BucketSnapshot(new BucketId("p", "t", key), requests, List.of(fixedWindow(limit, remaining)));
	}

}
