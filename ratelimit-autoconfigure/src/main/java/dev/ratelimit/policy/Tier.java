package dev.ratelimit.policy;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.algorithm.Limit;

/**
 * A plan tier within a policy: the limits a request of that tier must all pass.
 *
 * @param name the tier's name, as in {@code ratelimit.tiers}
 * @param limits the limits, in configuration order, never empty
 */
public record Tier(String name, List<Limit> limits) {

	public Tier {
		limits = List.copyOf(limits);
		if (limits.isEmpty()) {
			throw new IllegalArgumentException("tier '" + name + "' has no limits");
		}
	}

	/**
	 * How long a client of this tier must stay idle before all its limits are as good
	 * as new.
	 */
	public Duration idleTimeout() {
		Duration longest = Duration.ZERO;
		for (Limit limit : this.limits) {
			if (limit.idleTimeout().compareTo(longest) > 0) {
				longest = limit.idleTimeout();
			}
		}
		return longest;
	}

}
