package dev.ratelimit.policy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.ratelimit.algorithm.Limit;
import org.jspecify.annotations.Nullable;

/**
 * A plan tier within a policy: the limits a request of that tier must all pass.
 *
 * @param name the tier's name, as in {@code ratelimit.tiers}
 * @param limits the limits, in configuration order, never empty
 * @param limitNames the configured name of each limit, in the same order; {@code null}
 * for a limit without one
 */
public record Tier(String name, List<Limit> limits, List<@Nullable String> limitNames) {

	public Tier {
		limits = List.copyOf(limits);
		if (limits.isEmpty()) {
			throw new IllegalArgumentException("tier '" + name + "' has no limits");
		}
		if (limitNames.size() != limits.size()) {
			throw new IllegalArgumentException("tier '" + name + "' has " + limits.size() + " limits but "
					+ limitNames.size() + " limit names");
		}
		limitNames = Collections.unmodifiableList(new ArrayList<>(limitNames));
	}

	/**
	 * A tier whose limits have no configured names.
	 */
	public Tier(String name, List<Limit> limits) {
		this(name, limits, Collections.nCopies(limits.size(), null));
	}

	/**
	 * The name clients are told for the limit at {@code index} (in draft-11 headers and
	 * 429 bodies): its configured name, else {@code <policy>-<tier>-<n>}, {@code n}
	 * counting from 1.
	 * @param policyId the id of the policy this tier belongs to
	 */
	public String limitName(String policyId, int index) {
		String configured = this.limitNames.get(index);
		return (configured != null) ? configured : policyId + "-" + this.name + "-" + (index + 1);
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
