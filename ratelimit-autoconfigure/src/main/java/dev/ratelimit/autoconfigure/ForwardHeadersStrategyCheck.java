package dev.ratelimit.autoconfigure;

import java.util.Locale;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.env.Environment;

/**
 * Warns at start-up when {@code server.forward-headers-strategy} rewrites the remote
 * address: both Reactor Netty ({@code native}) and Spring's
 * {@code ForwardedHeaderTransformer} ({@code framework}) take the left-most
 * {@code X-Forwarded-For} or {@code Forwarded} address, the one the client writes, from
 * any client. Rate limits keyed by that address would then be keyed by whatever the
 * client claims; {@code ratelimit.trusted-proxies} reads the header only from the
 * proxies listed, and from the right.
 */
final class ForwardHeadersStrategyCheck implements SmartInitializingSingleton {

	static final String PROPERTY = "server.forward-headers-strategy";

	private static final Log logger = LogFactory.getLog(ForwardHeadersStrategyCheck.class);

	private final Environment environment;

	ForwardHeadersStrategyCheck(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void afterSingletonsInstantiated() {
		String strategy = this.environment.getProperty(PROPERTY);
		if (rewritesRemoteAddress(strategy)) {
			logger.warn(PROPERTY + "=" + strategy + " makes each request's remote address the left-most "
					+ "X-Forwarded-For or Forwarded address, which any client can write: rate limits keyed by "
					+ "client address (key: ip, and the fallback of api-key, principal and header keys) can be "
					+ "dodged by sending a new address with every request. Set " + PROPERTY + "=none and list "
					+ "the proxies in front of the gateway in ratelimit.trusted-proxies instead.");
		}
	}

	static boolean rewritesRemoteAddress(String strategy) {
		if (strategy == null) {
			return false;
		}
		String normalized = strategy.trim().toLowerCase(Locale.ROOT);
		return normalized.equals("native") || normalized.equals("framework");
	}

}
