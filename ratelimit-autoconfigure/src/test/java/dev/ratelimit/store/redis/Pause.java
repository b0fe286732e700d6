package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waiting in tests that run against real time: Redis's clock cannot be faked.
 */
final class Pause {

	/**
	 * How long a stopped and restarted Redis may take to decide again.
	 */
	private static final Duration RECOVERY = Duration.ofSeconds(30);

	private Pause() {
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Checks {@code condition} every 100ms until it holds, failing as {@code what} once
	 * Redis has had {@link #RECOVERY} to come back.
	 */
	static void untilRecovered(String what, BooleanSupplier condition) {
		until(what, RECOVERY, condition);
	}

	/**
	 * Checks {@code condition} every 100ms until it holds, failing as {@code what} once
	 * {@code within} has passed.
	 */
	static void until(String what, Duration within, BooleanSupplier condition) {
		long deadline = System.nanoTime() + within.toNanos();
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as(what).isLessThan(deadline);
			sleep(100);
		}
	}

}
