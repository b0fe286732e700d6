package dev.ratelimit.web;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The requests this node holds for shaping, at most {@code ratelimit.shaping.max-held-requests}
 * at once, shared by every route. A held request costs a timer and its exchange, never
 * a thread; the bound keeps a flood of them from costing the heap.
 */
public final class HeldRequests {

	private final int max;

	private final AtomicInteger held = new AtomicInteger();

	/**
	 * @param max the most requests held at once, positive
	 */
	public HeldRequests(int max) {
		if (max <= 0) {
			throw new IllegalArgumentException("max-held-requests must be positive but was " + max);
		}
		this.max = max;
	}

	/**
	 * Take a place for one more held request.
	 * @return whether there was one; if so, {@link #release()} gives it back
	 */
	boolean tryHold() {
		while (true) {
			int held = this.held.get();
			if (held >= this.max) {
				return false;
			}
			if (this.held.compareAndSet(held, held + 1)) {
				return true;
			}
		}
	}

	void release() {
		this.held.decrementAndGet();
	}

	/**
	 * Requests held now.
	 */
	public int held() {
		return this.held.get();
	}

	/**
	 * The most requests held at once.
	 */
	public int max() {
		return this.max;
	}

}
