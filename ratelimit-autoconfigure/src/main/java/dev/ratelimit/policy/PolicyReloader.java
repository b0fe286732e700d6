package dev.ratelimit.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Puts changed rate limit settings in force without a restart, one reload at a time so
 * that the last change is the one in force. The new policies come validated, as at
 * start-up, routes included: valid, they replace the policies in force at once and
 * whatever was built from the policies follows them; invalid, they are rejected with
 * an error log naming every problem, and the policies in force stay. Either way the
 * outcome is recorded in {@link PolicyReloads}, for the actuator and metrics.
 */
public final class PolicyReloader {

	private static final Log logger = LogFactory.getLog(PolicyReloader.class);

	/**
	 * The settings the policies are built from; any other {@code ratelimit.*} setting is
	 * read once, by a bean built at start-up.
	 */
	private static final List<String> RELOADED = List.of("ratelimit.policies", "ratelimit.tiers",
			"ratelimit.trusted-proxies", "ratelimit.forwarded-header", "ratelimit.store");

	private final LivePolicies policies;

	private final PolicyReloads reloads;

	private final Consumer<RateLimitPolicies> followers;

	/**
	 * @param policies the policies in force
	 * @param reloads where each reload's outcome is recorded
	 * @param followers rebuild what was built from the policies, given those now in
	 * force
	 */
	public PolicyReloader(LivePolicies policies, PolicyReloads reloads, Consumer<RateLimitPolicies> followers) {
		this.policies = policies;
		this.reloads = reloads;
		this.followers = followers;
	}

	/**
	 * Put in force the policies {@code candidate} builds and validates now.
	 * @param changedKeys the changed {@code ratelimit.*} keys
	 */
	public synchronized void reload(Set<String> changedKeys, Candidate candidate) {
		RateLimitPolicies next;
		try {
			next = candidate.validated(this.policies.get());
		}
		catch (InvalidRateLimitConfigurationException ex) {
			logger.error("Rate limit settings change rejected (" + changedKeys
					+ "); the policies in force stay unchanged. " + System.lineSeparator() + ex.getMessage());
			this.reloads.rejected(changedKeys, ex.getProblems());
			return;
		}
		warnAboutRestartOnly(changedKeys);
		RateLimitPolicies inForce = this.policies.replace(next);
		this.reloads.accepted(changedKeys);
		logger.info("Rate limit settings reloaded (" + changedKeys + "); policies in force: "
				+ new TreeSet<>(inForce.byId().keySet()));
		this.followers.accept(inForce);
	}

	private static void warnAboutRestartOnly(Set<String> changedKeys) {
		List<String> restartOnly = new ArrayList<>();
		for (String key : changedKeys) {
			if (RELOADED.stream().noneMatch((reloaded) -> key.equals(reloaded) || key.startsWith(reloaded + ".")
					|| key.startsWith(reloaded + "["))) {
				restartOnly.add(key);
			}
		}
		if (!restartOnly.isEmpty()) {
			logger.warn("Rate limit settings " + restartOnly + " changed but are read once, at start-up: they take"
					+ " effect at the next restart. Reloaded without a restart: " + RELOADED);
		}
	}

	/**
	 * The policies the settings describe now.
	 */
	@FunctionalInterface
	public interface Candidate {

		/**
		 * Build the policies and check them, and whatever is built from them, as at
		 * start-up.
		 * @param inForce the policies in force
		 * @throws InvalidRateLimitConfigurationException listing every problem found
		 */
		RateLimitPolicies validated(RateLimitPolicies inForce);

	}

}
