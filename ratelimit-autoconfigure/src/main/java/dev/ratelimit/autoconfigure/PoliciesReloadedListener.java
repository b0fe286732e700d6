package dev.ratelimit.autoconfigure;

import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Rebuilds one thing built from the policies on a {@link RateLimitPoliciesReloadedEvent}.
 * The reloader validated the policies against it first, so a failure here is a bug or a
 * bean of the application's own: it is logged and the thing keeps the policies it had,
 * without keeping anything else reloaded from following.
 */
final class PoliciesReloadedListener {

	private static final Log logger = LogFactory.getLog(PoliciesReloadedListener.class);

	private PoliciesReloadedListener() {
	}

	static void apply(String beanName, Runnable reload) {
		try {
			reload.run();
		}
		catch (InvalidRateLimitConfigurationException ex) {
			logger.error("Bean '" + beanName + "' could not follow the reloaded rate limit settings and keeps the"
					+ " ones it had until a restart. " + ex.getMessage());
		}
	}

}
