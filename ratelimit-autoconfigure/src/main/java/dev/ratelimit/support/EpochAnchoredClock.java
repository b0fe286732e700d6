package dev.ratelimit.support;

import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A monotonic source of time placed on the Unix epoch's timeline by one reading of the
 * wall clock: its readings move only with the monotonic source.
 */
final class EpochAnchoredClock implements MonotonicClock {

	private final LongSupplier monotonicNanos;

	/**
	 * What to add to a monotonic reading to place it on the epoch's timeline. Wrapping
	 * arithmetic keeps the sum exact whatever the monotonic source's origin.
	 */
	private final long offsetNanos;

	/**
	 * @param epochNanosNow the wall clock's reading, in nanoseconds since the epoch
	 * @param monotonicNanos the source time then advances with
	 */
	EpochAnchoredClock(long epochNanosNow, LongSupplier monotonicNanos) {
		this.monotonicNanos = monotonicNanos;
		this.offsetNanos = epochNanosNow - monotonicNanos.getAsLong();
	}

	static EpochAnchoredClock system() {
		Instant now = Instant.now();
		return new EpochAnchoredClock(TimeUnit.SECONDS.toNanos(now.getEpochSecond()) + now.getNano(), System::nanoTime);
	}

	@Override
	public long nanoTime() {
		return this.offsetNanos + this.monotonicNanos.getAsLong();
	}

}
