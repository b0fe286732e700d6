package dev.ratelimit.policy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The policies in force: one immutable {@link RateLimitPolicies}, replaced whole when
 * the configuration is reloaded and validated. Whoever reads them takes one snapshot
 * and works with it throughout (a route's filter, built from one snapshot, judges all
 * its requests under it), so nothing ever sees old and new settings mixed.
 */
public final class LivePolicies implements Supplier<RateLimitPolicies> {

	private final AtomicReference<RateLimitPolicies> current;

	/**
	 * @param initial the policies validated at start-up
	 */
	public LivePolicies(RateLimitPolicies initial) {
		this.current = new AtomicReference<>(initial);
	}

	/**
	 * The policies in force now.
	 */
	@Override
	public RateLimitPolicies get() {
		return this.current.get();
	}

	/**
	 * Put {@code next}, validated, in force. A policy equal to the one in force stays
	 * the same instance, and so do its tiers: the buckets of a tier that did not change
	 * go on as they are, without being taken over.
	 * @return the policies now in force
	 */
	public RateLimitPolicies replace(RateLimitPolicies next) {
		return this.current.updateAndGet((previous) -> keepingUnchanged(previous, next));
	}

	private static RateLimitPolicies keepingUnchanged(RateLimitPolicies previous, RateLimitPolicies next) {
		Map<String, RateLimitPolicy> byId = new LinkedHashMap<>();
		next.byId().forEach((id, policy) -> {
			RateLimitPolicy unchanged = previous.policy(id);
			byId.put(id, policy.equals(unchanged) ? unchanged : policy);
		});
		return new RateLimitPolicies(byId, next.tiersByApiKey(), next.trustedProxies(), next.tierSource());
	}

}
