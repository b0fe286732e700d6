package dev.ratelimit.actuate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.LimitSnapshot;

/**
 * Keeps the hottest {@code capacity} buckets of a stream of any length in a bounded
 * heap, so listing a store of a million buckets holds only {@code capacity} of them.
 * Hottest means most requests, then closest to exhaustion.
 */
final class HottestBuckets {

	static final Comparator<BucketSnapshot> HOTTEST_FIRST = Comparator
		.comparingLong(BucketSnapshot::requests)
		.reversed()
		.thenComparingDouble(HottestBuckets::headroom);

	private final int capacity;

	private final PriorityQueue<BucketSnapshot> coolestFirst = new PriorityQueue<>(HOTTEST_FIRST.reversed());

	HottestBuckets(int capacity) {
		if (capacity < 1) {
			throw new IllegalArgumentException("capacity must be positive, was " + capacity);
		}
		this.capacity = capacity;
	}

	void offer(BucketSnapshot bucket) {
		if (this.coolestFirst.size() < this.capacity) {
			this.coolestFirst.add(bucket);
		}
		else if (HOTTEST_FIRST.compare(bucket, this.coolestFirst.peek()) < 0) {
			this.coolestFirst.poll();
			this.coolestFirst.add(bucket);
		}
	}

	/**
	 * The buckets kept, hottest first.
	 */
	List<BucketSnapshot> hottestFirst() {
		List<BucketSnapshot> buckets = new ArrayList<>(this.coolestFirst);
		buckets.sort(HOTTEST_FIRST);
		return buckets;
	}

	/**
	 * The share of quota left in the bucket's most exhausted limit: 0 when exhausted, 1
	 * when untouched.
	 */
	private static double headroom(BucketSnapshot bucket) {
		double headroom = 1.0;
		for (LimitSnapshot limit : bucket.limits()) {
			headroom = Math.min(headroom, (double) limit.remaining() / limit.limit());
		}
		return headroom;
	}

}
