package dev.ratelimit.shaping;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.web.Outcome;
import dev.ratelimit.web.RateLimitListener;

/**
 * The holds a gateway decided, per policy: how many and the longest, as its listeners
 * are told them. Set beside the waits the upstream saw, it tells the schedule from the
 * timers' and the forwarding's lateness.
 */
public final class DecidedHolds implements RateLimitListener {

	private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

	private final Map<String, AtomicLong> longest = new ConcurrentHashMap<>();

	@Override
	public void onDecision(String policy, String tier, String routeId, String store, Outcome outcome,
			long decisionNanos) {
	}

	@Override
	public void onDelayed(String policy, String tier, String routeId, String store, Outcome outcome,
			long decisionNanos, long delayNanos) {
		if (outcome == Outcome.DELAYED) {
			this.counts.computeIfAbsent(policy, (key) -> new AtomicLong()).incrementAndGet();
			this.longest.computeIfAbsent(policy, (key) -> new AtomicLong()).accumulateAndGet(delayNanos, Math::max);
		}
	}

	long count(String policy) {
		AtomicLong count = this.counts.get(policy);
		return (count != null) ? count.get() : 0;
	}

	long longestNanos(String policy) {
		AtomicLong nanos = this.longest.get(policy);
		return (nanos != null) ? nanos.get() : 0;
	}

	void clear() {
		this.counts.clear();
		this.longest.clear();
	}

}
