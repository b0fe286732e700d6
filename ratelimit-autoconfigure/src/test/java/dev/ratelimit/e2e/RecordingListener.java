package dev.ratelimit.e2e;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.ratelimit.web.Outcome;
import dev.ratelimit.web.RateLimitListener;

/**
 * Remembers every decision the filter reports.
 */
public final class RecordingListener implements RateLimitListener {

	private final List<Decision> decisions = new CopyOnWriteArrayList<>();

	@Override
	public void onDecision(String policy, String tier, String routeId, String store, Outcome outcome,
			long decisionNanos) {
		this.decisions.add(new Decision(policy, tier, routeId, store, outcome));
	}

	public void clear() {
		this.decisions.clear();
	}

	public List<Decision> decisions() {
		return this.decisions;
	}

	public record Decision(String policy, String tier, String routeId, String store, Outcome outcome) {
	}

}
