package dev.ratelimit.e2e;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.algorithm.MonotonicClock;

/**
 * A clock tests move by hand, so that nothing depends on how fast the machine is.
 */
public final class ManualClock implements MonotonicClock {

	private final AtomicLong nanos = new AtomicLong(1_000_000_000_000L);

	@Override
	public long nanoTime() {
		return this.nanos.get();
	}

	public void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

	/**
	 * Move forward to the next instant that is a whole multiple of {@code period}, the
	 * start of an aligned window.
	 */
	public void advanceToMultipleOf(Duration period) {
		long periodNanos = period.toNanos();
		this.nanos.updateAndGet((now) -> (Math.floorDiv(now, periodNanos) + 1) * periodNanos);
	}

}
