package dev.ratelimit.gateway;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;

/**
 * Logs a recurring failure at most once per interval, with the number of occurrences
 * left unlogged, so a failing store cannot flood the log at request rate.
 */
final class ThrottledLog {

	private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

	private final Log log;

	private final AtomicLong nextLogNanos = new AtomicLong(System.nanoTime());

	private final AtomicLong suppressed = new AtomicLong();

	ThrottledLog(Log log) {
		this.log = log;
	}

	void warn(String message, Throwable error) {
		long now = System.nanoTime();
		long next = this.nextLogNanos.get();
		if (now - next >= 0 && this.nextLogNanos.compareAndSet(next, now + INTERVAL_NANOS)) {
			long skipped = this.suppressed.getAndSet(0);
			String suffix = (skipped > 0) ? " (" + skipped + " similar failures not logged)" : "";
			this.log.warn(message + suffix, error);
		}
		else {
			this.suppressed.incrementAndGet();
		}
	}

}
