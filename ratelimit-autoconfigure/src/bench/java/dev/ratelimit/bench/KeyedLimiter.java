package dev.ratelimit.bench;

import dev.ratelimit.store.BucketId;

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
	 * Whether an answer of {@link #acquire} admitted the request; waits for it when it
	 * is asynchronous. For checks outside the measured code only.
	 */
	boolean admitted(Object answer);

}
