package dev.ratelimit.bench;

import dev.ratelimit.store.BucketId;
import org.openjdk.jmh.infra.Blackhole;

/**
 * One rate limiter holding a state per client key, as the benchmarks drive it: ours
 * through the store the gateway filter uses, the others the way a user would wire them.
 */
public interface KeyedLimiter {

	/**
	 * Judge one request of the client {@code id}, creating its state when it is new.
	 * @return what the library answers per request (a {@code Mono}, a probe, a future or
	 * a boolean), so that a benchmark consumes exactly what a caller would get
	 */
	Object acquire(BucketId id);

	/**
	 * Judge one request of the client {@code id} and consume what a caller reads of the
	 * answer: the whole answer unless a limiter says otherwise, so that an answer the
	 * caller only reads need not be built on the heap, while nothing it reads can be
	 * optimised away.
	 */
	default void acquire(BucketId id, Blackhole blackhole) {
		blackhole.consume(acquire(id));
	}

	/**
	 * Whether an answer of {@link #acquire} admitted the request; waits for it when it
	 * is asynchronous. For checks outside the measured code only.
	 */
	boolean admitted(Object answer);

}
