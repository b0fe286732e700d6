package dev.ratelimit.store.caffeine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The locks that make each decision of the Caffeine store atomic: {@value #STRIPES}
 * spin locks, a bucket's picked by its identity hash, each on a cache line of its own,
 * shared by every store of the JVM (a bucket needs a lock no two threads hold at once,
 * not one of its own).
 * <p>
 * Not the bucket's own monitor: {@code synchronized} costs a compare-and-swap to enter
 * and another to exit, inflates to a parked monitor as soon as two threads meet on a
 * hot bucket, and its compiled code is large enough that the JIT no longer inlines the
 * store's decision into its caller, so a decision's {@code Decision} could not stay off
 * the heap. Here taking a lock is one compare-and-swap and releasing it one store with
 * release ordering (a plain store on x86). A lock is held only while one bucket's
 * numbers are computed (tens of nanoseconds, no I/O, no blocking, not even the clock's
 * reading, taken before), so a waiting thread spins briefly and then yields its
 * processor rather than parking. The lock word lives apart from the bucket, so
 * that a thread waiting for it does not keep stealing the cache line holding the
 * bucket's key, which every lookup of the bucket compares. The table is static so that
 * the JIT knows its length and checks no index: every instruction counts towards the
 * size under which it inlines the store's decision into its caller.
 */
final class BucketLocks {

	/**
	 * How many locks: enough that distinct busy buckets seldom share one; a power of two.
	 */
	private static final int STRIPES = 256;

	/**
	 * Ints between two locks: 128 bytes, so that neither a lock's cache line nor the
	 * adjacent one the processor fetches with it holds another lock.
	 */
	private static final int SPACING = 32;

	/**
	 * Spins before a waiting thread starts yielding its processor: a few times the
	 * length of a decision.
	 */
	private static final int SPINS = 64;

	private static final VarHandle LOCK = MethodHandles.arrayElementVarHandle(int[].class);

	private static final int FREE = 0;

	private static final int HELD = 1;

	private static final int[] WORDS = new int[(STRIPES + 1) * SPACING];

	private BucketLocks() {
	}

	/**
	 * Take the lock of {@code bucket}, waiting as long as another thread holds it.
	 * @return the lock taken, for {@link #unlock(int)}
	 */
	static int lock(CaffeineBucket bucket) {
		int lock = index(System.identityHashCode(bucket));
		if (!LOCK.compareAndSet(WORDS, lock, FREE, HELD)) {
			await(lock);
		}
		return lock;
	}

	/**
	 * Release {@code lock}, taken by this thread: what it wrote under the lock is seen by
	 * the next thread to take it.
	 */
	static void unlock(int lock) {
		LOCK.setRelease(WORDS, lock, FREE);
	}

	private static void await(int lock) {
		int spins = 0;
		do {
			// Read before trying, so that waiting threads share the line until it is freed.
			while ((int) LOCK.getOpaque(WORDS, lock) == HELD) {
				if (++spins < SPINS) {
					Thread.onSpinWait();
				}
				else {
					Thread.yield();
				}
			}
		}
		while (!LOCK.compareAndSet(WORDS, lock, FREE, HELD));
	}

	/**
	 * The word of the lock of {@code hash}; the first {@link #SPACING} ints stay unused,
	 * so that the array's header does not share the first lock's line either.
	 */
	private static int index(int hash) {
		return ((hash ^ (hash >>> 16)) & (STRIPES - 1)) * SPACING + SPACING;
	}

}
