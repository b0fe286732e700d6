package dev.ratelimit.gateway;

import java.util.List;

import dev.ratelimit.store.ThrottledLog;
import org.apache.commons.logging.LogFactory;

/**
 * The {@link RateLimitListener}s told of every decision, by the filters and by the
 * policies' {@code RateLimiter} beans alike. A listener that fails is logged (at most
 * once per interval) and never keeps the others, or the request, from going on.
 */
final class DecisionListeners {

	private static final ThrottledLog failures = new ThrottledLog(LogFactory.getLog(DecisionListeners.class));

	private final RateLimitListener[] listeners;

	DecisionListeners(List<RateLimitListener> listeners) {
		this.listeners = listeners.toArray(new RateLimitListener[0]);
	}

	void notify(String policyId, String tier, String routeId, String store, Outcome outcome, long decisionNanos) {
		for (RateLimitListener listener : this.listeners) {
			try {
				listener.onDecision(policyId, tier, routeId, store, outcome, decisionNanos);
			}
			catch (RuntimeException ex) {
				failures.warn(() -> "Rate limit listener " + listener + " failed", ex);
			}
		}
	}

}
