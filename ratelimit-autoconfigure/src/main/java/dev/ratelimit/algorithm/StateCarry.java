package dev.ratelimit.algorithm;

/**
 * What a client's state for one limit becomes when its tier's limit changes on a live
 * reload: kept where the limit kept its meaning, re-based where it changed, fresh where
 * the old numbers mean nothing under the new limit.
 * <ul>
 * <li>The same limit: the state as it is.</li>
 * <li>Fixed window and sliding window counter, same window: the counts carry over,
 * each at most the new limit, so a raised limit gives the client the difference at
 * once and a lowered one leaves a client that already spent more with nothing left
 * until its window moves on. Another window: fresh, as window indexes of another
 * length mean nothing.</li>
 * <li>Sliding window log: the admission instants carry over, the most recent ones up
 * to the new limit; they are instants on the clock, so they keep their meaning under
 * another window too.</li>
 * <li>Token bucket: refilled at the old rate up to now, then the client keeps what it
 * had consumed ({@code capacity - tokens}) against the new capacity; from now on it
 * refills at the new rate. An idle client is full under the new capacity, as a new
 * client is.</li>
 * <li>Leaky bucket: drained at the old rate up to now, then the queue's level carries
 * over, at most the new capacity; from now on it drains at the new rate.</li>
 * <li>Another algorithm: fresh.</li>
 * </ul>
 */
final class StateCarry {

	private StateCarry() {
	}

	/**
	 * Carry {@code from}, a state of {@code previous}, into {@code to}, a started state of
	 * {@code next}, at {@code nowNanos}. {@code from} is read and brought up to
	 * {@code nowNanos}; it is not judged again afterwards.
	 */
	static void carry(Limit previous, StateWords from, Limit next, StateWords to, long nowNanos) {
		if (previous.equals(next)) {
			copy(from, to);
		}
		else if (previous instanceof FixedWindow old && next instanceof FixedWindow now
				&& old.window().equals(now.window())) {
			old.probe(from, nowNanos, 0);
			to.word0 = from.word0;
			to.word1 = Math.min(from.word1, now.limit());
		}
		else if (previous instanceof SlidingWindowCounter old && next instanceof SlidingWindowCounter now
				&& old.window().equals(now.window())) {
			old.probe(from, nowNanos, 0);
			to.word0 = from.word0;
			to.word1 = Math.min(from.word1, now.limit());
			to.word2 = Math.min(from.word2, now.limit());
		}
		else if (previous instanceof SlidingWindowLog old && next instanceof SlidingWindowLog now) {
			old.probe(from, nowNanos, 0);
			now.carryEntries(from, to);
		}
		else if (previous instanceof TokenBucket old && next instanceof TokenBucket now) {
			old.probe(from, nowNanos, 0);
			double consumed = old.capacity() - Double.longBitsToDouble(from.word0);
			to.word0 = Double.doubleToRawLongBits(Math.max(0, Math.min(now.capacity(), now.capacity() - consumed)));
			to.word1 = from.word1;
		}
		else if (previous instanceof LeakyBucket old && next instanceof LeakyBucket now) {
			old.probe(from, nowNanos, 0);
			to.word0 = Double.doubleToRawLongBits(Math.min(now.capacity(), Double.longBitsToDouble(from.word0)));
			to.word1 = from.word1;
		}
	}

	private static void copy(StateWords from, StateWords to) {
		to.word0 = from.word0;
		to.word1 = from.word1;
		to.word2 = from.word2;
		Object extension = from.extension();
		if (extension != null) {
			to.extension(extension);
		}
	}

}
