package dev.ratelimit.actuate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

import dev.ratelimit.store.BlockSnapshot;

/**
 * Keeps the {@code capacity} penalty blocks with the most time left of a stream of any
 * length in a bounded heap, as {@link HottestBuckets} keeps buckets, and counts them
 * all: an attack from a million addresses may leave a million blocks.
 */
final class LongestBlocks {

	static final Comparator<BlockSnapshot> LONGEST_FIRST = Comparator.comparingLong(BlockSnapshot::remainingNanos)
		.reversed();

	private final int capacity;

	private final PriorityQueue<BlockSnapshot> shortestFirst = new PriorityQueue<>(LONGEST_FIRST.reversed());

	private long count;

	LongestBlocks(int capacity) {
		if (capacity < 1) {
			throw new IllegalArgumentException("capacity must be positive, was " + capacity);
		}
		this.capacity = capacity;
	}

	void offer(BlockSnapshot block) {
		this.count++;
		if (this.shortestFirst.size() < this.capacity) {
			this.shortestFirst.add(block);
		}
		else if (LONGEST_FIRST.compare(block, this.shortestFirst.peek()) < 0) {
			this.shortestFirst.poll();
			this.shortestFirst.add(block);
		}
	}

	/**
	 * How many blocks were offered.
	 */
	long count() {
		return this.count;
	}

	/**
	 * The blocks kept, longest left first.
	 */
	List<BlockSnapshot> longestFirst() {
		List<BlockSnapshot> blocks = new ArrayList<>(this.shortestFirst);
		blocks.sort(LONGEST_FIRST);
		return blocks;
	}

}
