package dev.ratelimit.support;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * Logs a recurring failure at most once per interval, with the number of occurrences
 * left unlogged, so that a failing store (or anything else failing at request rate)
 * cannot flood the log.
 */
public final class ThrottledLog {

	private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

	private final Log log;

	private final MonotonicClock clock;

	private final AtomicLong nextLogNanos;

	private final AtomicLong suppressed = new AtomicLong();

	/**
	 * A log throttled on real time.
	 */
	public ThrottledLog(Log log) {
		this(log, MonotonicClock.SYSTEM);
	}

	/**
	 * A log throttled on {@code clock}; its first warning is written at once.
	 */
	public ThrottledLog(Log log, MonotonicClock clock) {
		this.log = log;
		this.clock = clock;
		this.nextLogNanos = new AtomicLong(clock.nanoTime());
	}

	/**
	 * Warn, unless a warning was written less than an interval ago; the message is
	 * only built when it is written.
	 */
	public void warn(Supplier<String> message, @Nullable Throwable error) {
		long now = this.clock.nanoTime();
		long next = this.nextLogNanos.get();
		if (now - next >= 0 && this.nextLogNanos.compareAndSet(next, now + INTERVAL_NANOS)) {
			long skipped = this.suppressed.getAndSet(0);
			if (this.log.isWarnEnabled()) {
				String suffix = (skipped > 0) ? " (" + skipped + " similar failures not logged)" : "";
				this.log.warn(message.get() + suffix, error);
			}
		}
		else {
			this.suppressed.incrementAndGet();
		}
	}

}
