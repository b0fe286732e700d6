package dev.ratelimit.algorithm;

import java.time.Duration;

/**
 * How a bucket shapes instead of metering: a request the bucket cannot admit at once is
 * given a place and released later, when the bucket would have admitted it, if that is
 * within {@code maxDelay}; otherwise it is refused at once. The place is taken when the
 * request is judged, so that concurrent requests get distinct release instants.
 *
 * @param maxDelay the longest a request may be held, positive
 * @param delayAfter units of a leaky bucket's queue that pass at once before the rest
 * are spaced at the drain rate (nginx's {@code delay=N} is {@code N + 1}); {@code 1},
 * the default, spaces every request behind the first. A token bucket's burst is its
 * capacity, so it takes only {@code 1}.
 */
public record Shaping(Duration maxDelay, long delayAfter) {

	public Shaping {
		Validation.positiveDuration("max-delay", maxDelay);
		Validation.positive("delay-after", delayAfter);
	}

	/**
	 * Shaping that spaces every request behind the first.
	 */
	public Shaping(Duration maxDelay) {
		this(maxDelay, 1);
	}

	long maxDelayNanos() {
		return Nanos.ofValidated(this.maxDelay);
	}

}
