package dev.ratelimit.policy;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Rebuilds one thing built from the policies on a {@link RateLimitPoliciesReloadedEvent}.
 * The reload validated the policies against it first, so a failure here is a bug or a
 * bean of the application's own: it is logged and the thing keeps the policies it had,
 * without keeping anything else reloaded from following.
 */
public final class ReloadFollowers {

	private static final Log logger = LogFactory.getLog(ReloadFollowers.class);

	private ReloadFollowers() {
	}

	/**
	 * Run {@code rebuild}, the reload of the bean {@code beanName}, logging its failure.
	 */
	public static void rebuild(String beanName, Runnable rebuild) {
		try {
			rebuild.run();
		}
		catch (InvalidRateLimitConfigurationException ex) {
			logger.error("Bean '" + beanName + "' could not follow the reloaded rate limit settings and keeps the"
					+ " ones it had until a restart. " + ex.getMessage());
		}
	}

}
