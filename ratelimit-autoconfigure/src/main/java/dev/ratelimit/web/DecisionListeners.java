package dev.ratelimit.web;

import java.util.List;

import dev.ratelimit.support.ThrottledLog;
import dev.ratelimit.web.RateLimitListener.RouteTierListener;
import org.apache.commons.logging.LogFactory;

/**
 * The {@link RateLimitListener}s told of every decision and settlement, by the filters and by the
 * policies' {@code RateLimiter} beans alike, through each route's {@link RequestJudge}.
 * A listener that fails is logged (at most once per interval) and never keeps the
 * others, or the request, from going on.
 */
final class DecisionListeners {

	private static final ThrottledLog failures = new ThrottledLog(LogFactory.getLog(DecisionListeners.class));

	private final RateLimitListener[] listeners;

	DecisionListeners(List<RateLimitListener> listeners) {
		this.listeners = listeners.toArray(new RateLimitListener[0]);
	}

	/**
	 * The listeners of one route's decisions under one tier, each bound once here
	 * ({@link RateLimitListener#forRouteTier}) rather than finding its meters per
	 * request.
	 */
	Bound forRouteTier(String policyId, String tier, String routeId, String store) {
		RouteTierListener[] bound = new RouteTierListener[this.listeners.length];
		for (int i = 0; i < bound.length; i++) {
			bound[i] = this.listeners[i].forRouteTier(policyId, tier, routeId, store);
		}
		return new Bound(this.listeners, bound);
	}

	private static void failed(RateLimitListener listener, RuntimeException ex) {
		failures.warn(() -> "Rate limit listener " + listener + " failed", ex);
	}

	/**
	 * The listeners of one route under one tier.
	 */
	static final class Bound {

		private final RateLimitListener[] listeners;

		private final RouteTierListener[] bound;

		private Bound(RateLimitListener[] listeners, RouteTierListener[] bound) {
			this.listeners = listeners;
			this.bound = bound;
		}

		void notify(Outcome outcome, long decisionNanos) {
			for (int i = 0; i < this.bound.length; i++) {
				try {
					this.bound[i].onDecision(outcome, decisionNanos);
				}
				catch (RuntimeException ex) {
					failed(this.listeners[i], ex);
				}
			}
		}

		void notifyDelayed(Outcome outcome, long decisionNanos, long delayNanos) {
			for (int i = 0; i < this.bound.length; i++) {
				try {
					this.bound[i].onDelayed(outcome, decisionNanos, delayNanos);
				}
				catch (RuntimeException ex) {
					failed(this.listeners[i], ex);
				}
			}
		}

		/**
		 * Units a settlement changed: charged when positive, given back when negative.
		 */
		void notifySettled(long units) {
			if (units == 0) {
				return;
			}
			for (int i = 0; i < this.bound.length; i++) {
				try {
					if (units > 0) {
						this.bound[i].onCharged(units);
					}
					else {
						this.bound[i].onRefunded(-units);
					}
				}
				catch (RuntimeException ex) {
					failed(this.listeners[i], ex);
				}
			}
		}

		void notifyUnreadableCost(String reason) {
			for (int i = 0; i < this.bound.length; i++) {
				try {
					this.bound[i].onUnreadableCost(reason);
				}
				catch (RuntimeException ex) {
					failed(this.listeners[i], ex);
				}
			}
		}

		void notifySlotTaken() {
			for (int i = 0; i < this.bound.length; i++) {
				try {
					this.bound[i].onSlotTaken();
				}
				catch (RuntimeException ex) {
					failed(this.listeners[i], ex);
				}
			}
		}

		void notifySlotReleased() {
			for (int i = 0; i < this.bound.length; i++) {
				try {
					this.bound[i].onSlotReleased();
				}
				catch (RuntimeException ex) {
					failed(this.listeners[i], ex);
				}
			}
		}

		void notifyBlockStarted(int step) {
			for (int i = 0; i < this.bound.length; i++) {
				try {
					this.bound[i].onBlockStarted(step);
				}
				catch (RuntimeException ex) {
					failed(this.listeners[i], ex);
				}
			}
		}

	}

}
