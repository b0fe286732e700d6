package dev.ratelimit.gateway;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.web.RateLimitedRoutes;
import org.jspecify.annotations.Nullable;

import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.support.NameUtils;

/**
 * Which policy a route's filter definition names, as written in the gateway's
 * properties: a {@code RateLimit} filter's {@code policy}, or a
 * {@code RequestRateLimiter} filter's {@code rate-limiter} bean reference.
 */
public final class FilterDefinitions {

	/**
	 * The name of Spring Cloud Gateway's {@code RequestRateLimiter} filter.
	 */
	public static final String REQUEST_RATE_LIMITER = RateLimitedRoutes.REQUEST_RATE_LIMITER;

	/**
	 * A bean reference as a route argument: {@code #{@name}} or {@code #{@'name'}}.
	 */
	private static final Pattern BEAN_REFERENCE = Pattern.compile("#\\{\\s*@'?([^'}]+?)'?\\s*}");

	private FilterDefinitions() {
	}

	/**
	 * The policy id a {@code RateLimit} filter definition names, or {@code null} when it
	 * is another filter or names no policy. Accepts the shortcut
	 * ({@code RateLimit=orders}) and the long form ({@code args: { policy: orders }}).
	 */
	public static @Nullable String rateLimitPolicy(FilterDefinition definition) {
		if (!RateLimitGatewayFilterFactory.NAME.equals(definition.getName())) {
			return null;
		}
		Map<String, String> args = definition.getArgs();
		String policy = args.get(RateLimitGatewayFilterFactory.POLICY_KEY);
		return (policy != null) ? policy : args.get(NameUtils.generateName(0));
	}

	/**
	 * The policy whose bean a {@code RequestRateLimiter} filter definition names in its
	 * {@code rate-limiter} argument ({@code "#{@ordersRateLimiter}"}), or {@code null}
	 * when it is another filter or names another rate limiter.
	 */
	public static @Nullable String rateLimiterPolicy(FilterDefinition definition) {
		String beanName = rateLimiterBeanName(definition);
		String suffix = PolicyRateLimiter.BEAN_NAME_SUFFIX;
		return (beanName != null && beanName.endsWith(suffix) && beanName.length() > suffix.length())
				? beanName.substring(0, beanName.length() - suffix.length()) : null;
	}

	/**
	 * The bean a {@code RequestRateLimiter} filter definition names in its
	 * {@code rate-limiter} argument ({@code "#{@ordersRateLimiter}"}), or {@code null}
	 * when it is another filter or its rate limiter is not a bean reference.
	 */
	public static @Nullable String rateLimiterBeanName(FilterDefinition definition) {
		if (!REQUEST_RATE_LIMITER.equals(definition.getName())) {
			return null;
		}
		String rateLimiter = rateLimiterArgument(definition);
		Matcher reference = (rateLimiter != null) ? BEAN_REFERENCE.matcher(rateLimiter.strip()) : null;
		return (reference != null && reference.matches()) ? reference.group(1) : null;
	}

	/**
	 * The {@code rate-limiter} argument of a filter definition, as written.
	 */
	static @Nullable String rateLimiterArgument(FilterDefinition definition) {
		String rateLimiter = definition.getArgs().get("rate-limiter");
		return (rateLimiter != null) ? rateLimiter : definition.getArgs().get("rateLimiter");
	}

}
