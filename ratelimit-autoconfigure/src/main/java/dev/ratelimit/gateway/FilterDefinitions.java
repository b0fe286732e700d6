package dev.ratelimit.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.policy.NamedPolicies;
import dev.ratelimit.web.RateLimitedRoutes;
import org.jspecify.annotations.Nullable;

import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.support.NameUtils;

/**
 * Which policies a route's filter definition names, as written in the gateway's
 * properties: a {@code RateLimit} filter's {@code policies}, or a
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

	/**
	 * An argument of a {@code RateLimit} filter: a shortcut's, {@code policy},
	 * {@code policies} or one element of its list, as the gateway's properties bind a
	 * YAML list into the arguments ({@code policies.0}) or a definition names it
	 * ({@code policies[0]}).
	 */
	private static final Pattern POLICY_ARGUMENT = Pattern
		.compile(Pattern.quote(NameUtils.GENERATED_NAME_PREFIX) + "\\d+|" + RateLimitGatewayFilterFactory.POLICY_KEY
				+ "|" + RateLimitGatewayFilterFactory.POLICIES_KEY + "(\\.\\d+|\\[\\d+])?");

	private FilterDefinitions() {
	}

	/**
	 * The policy ids a {@code RateLimit} filter definition names, in order, or
	 * {@code null} when it is another filter: as the filter gathers them, every
	 * argument's value, each split at its commas. Accepts the shortcut
	 * ({@code RateLimit=orders}, {@code RateLimit=per-ip,global}) and the long form
	 * ({@code args: { policies: [per-ip, global] }}, {@code args: { policy: orders }}).
	 */
	public static @Nullable List<String> rateLimitPolicies(FilterDefinition definition) {
		if (!RateLimitGatewayFilterFactory.NAME.equals(definition.getName())) {
			return null;
		}
		return NamedPolicies.ids(new ArrayList<>(definition.getArgs().values()));
	}

	/**
	 * The arguments of a {@code RateLimit} filter definition that name no policies:
	 * every argument is read as policy ids, so another one (a misspelt {@code policy})
	 * would name a policy by its value.
	 */
	static List<String> otherArguments(FilterDefinition definition) {
		List<String> others = new ArrayList<>();
		for (String name : definition.getArgs().keySet()) {
			if (!POLICY_ARGUMENT.matcher(name).matches()) {
				others.add(name);
			}
		}
		return others;
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
