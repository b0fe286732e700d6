package dev.ratelimit.algorithm;

/**
 * What a {@link Penalty} remembers of one client after a breach: the step of
 * {@code block-for} it serves, until when it is blocked, and from when its record is
 * forgiven. Instants are nanoseconds on the store's timeline (since the Unix epoch, as
 * {@link dev.ratelimit.support.MonotonicClock} and Redis time count).
 *
 * @param step the step served, counted from 1
 * @param untilNanos the end of the block: a request at or after it is judged again
 * @param forgivenNanos from when the record is forgotten, so that the next breach is
 * served the first step again: {@code forgive-after} after the block's end, or the
 * block's end itself for a penalty of one step
 */
public record Block(int step, long untilNanos, long forgivenNanos) {

	/**
	 * Whether the block still refuses a request at {@code nowNanos}: it ends exactly at
	 * {@link #untilNanos()}.
	 */
	public boolean blocks(long nowNanos) {
		return nowNanos < this.untilNanos;
	}

	/**
	 * Whether the record is forgotten at {@code nowNanos}.
	 */
	public boolean forgiven(long nowNanos) {
		return nowNanos >= this.forgivenNanos;
	}

	/**
	 * Nanoseconds the block still lasts at {@code nowNanos}; {@code 0} once it ended.
	 */
	public long remainingNanos(long nowNanos) {
		return Math.max(0, this.untilNanos - nowNanos);
	}

}
