package dev.ratelimit.support;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that only moves when told to, for tests that check a policy's decisions
 * deterministically, however fast or loaded the machine is. Define it as the
 * application's {@link MonotonicClock} bean and every store judges by it.
 * <p>
 * It starts at 1000 seconds after the epoch, a whole multiple of every window up to
 * 1000 seconds; {@link #advanceToMultipleOf(Duration)} moves it to the start of the
 * next aligned window of any length.
 */
public final class ManualClock implements MonotonicClock {

	private static final long START_NANOS = 1_000_000_000_000L;

	private final AtomicLong nanos = new AtomicLong(START_NANOS);

	@Override
	public long nanoTime() {
		return this.nanos.get();
	}

	/**
	 * Move forward by {@code duration}.
	 * @throws IllegalArgumentException when the duration is negative: a monotonic
	 * clock never goes back
	 */
	public void advance(Duration duration) {
		if (duration.isNegative()) {
			throw new IllegalArgumentException("A monotonic clock cannot go back; advance by " + duration
					+ " is negative");
		}
		this.nanos.addAndGet(duration.toNanos());
	}

	/**
	 * Move forward to the next instant that is a whole multiple of {@code period}, the
	 * start of an aligned window of that length.
	 */
	public void advanceToMultipleOf(Duration period) {
		long periodNanos = period.toNanos();
		this.nanos.updateAndGet((now) -> (Math.floorDiv(now, periodNanos) + 1) * periodNanos);
	}

}
