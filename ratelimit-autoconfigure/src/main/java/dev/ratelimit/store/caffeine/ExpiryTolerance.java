package dev.ratelimit.store.caffeine;

/**
 * How long the store's caches keep an entry that must outlive a span: Caffeine moves an
 * entry's expiry on a read or update only when it moves by more than a second (its
 * {@code EXPIRE_WRITE_TOLERANCE}), so an entry used again within a second may expire up
 * to a second before its span ends. Kept a second longer, an entry never expires while
 * it still counts; its own instants decide what it says.
 */
final class ExpiryTolerance {

	private static final long TOLERANCE_NANOS = 1_000_000_000L;

	private ExpiryTolerance() {
	}

	/**
	 * A cache's expiry for an entry that must be kept {@code spanNanos} more (none when
	 * negative): the span and the tolerance, {@link Long#MAX_VALUE} when they overflow.
	 */
	static long keptFor(long spanNanos) {
		long span = Math.max(0, spanNanos);
		return (span < Long.MAX_VALUE - TOLERANCE_NANOS) ? span + TOLERANCE_NANOS : Long.MAX_VALUE;
	}

}
