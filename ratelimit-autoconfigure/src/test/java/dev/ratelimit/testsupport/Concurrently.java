package dev.ratelimit.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

/**
 * Runs a task on several threads released at the same instant, so that they race.
 */
public final class Concurrently {

	private Concurrently() {
	}

	/**
	 * Each thread's result, in thread order; the first failure of any thread is
	 * rethrown. A minute bounds a hung thread, not the speed of the code under test.
	 * @param task what thread {@code t}, from 0, does
	 */
	public static <T> List<T> call(int threads, IntFunction<T> task) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<T>> futures = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				futures.add(executor.submit(() -> {
					start.await();
					return task.apply(thread);
				}));
			}
			start.countDown();
			List<T> results = new ArrayList<>();
			for (Future<T> future : futures) {
				results.add(future.get(1, TimeUnit.MINUTES));
			}
			return results;
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * As {@link #call}, for a task without a result.
	 */
	public static void run(int threads, IntConsumer task) throws Exception {
		call(threads, (thread) -> {
			task.accept(thread);
			return null;
		});
	}

}
