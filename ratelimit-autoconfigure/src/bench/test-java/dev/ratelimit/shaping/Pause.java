package dev.ratelimit.shaping;

import java.time.Duration;

/**
 * Waiting for the machine: for a gateway to finish what it was doing, or between
 * readings of a state that has no event to wait on.
 */
public final class Pause {

	private Pause() {
	}

	public static void of(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
