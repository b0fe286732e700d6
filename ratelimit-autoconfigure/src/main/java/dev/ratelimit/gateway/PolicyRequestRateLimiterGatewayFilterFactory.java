package dev.ratelimit.gateway;

import java.util.List;
import java.util.TreeSet;

import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;

import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.PrincipalNameKeyResolver;

/**
 * Spring Cloud Gateway's {@code RequestRateLimiter} filter for applications that have
 * no {@code RateLimiter} of their own (Spring Cloud Gateway only defines the filter
 * when one exists, such as its {@code RedisRateLimiter}), so that routes can name a
 * policy's limiter: {@code rate-limiter: "#{@ordersRateLimiter}"}. With no default
 * limiter, a route that names none fails when it is built, naming the limiters there
 * are. The default key resolver is Spring Cloud Gateway's: the principal's name.
 */
public class PolicyRequestRateLimiterGatewayFilterFactory extends RequestRateLimiterGatewayFilterFactory {

	private static final String NAME = "RequestRateLimiter";

	private final TreeSet<String> rateLimiters;

	/**
	 * @param rateLimiterBeanNames the names of the {@code RateLimiter} beans a route may
	 * name, for the error of a route that names none
	 */
	public PolicyRequestRateLimiterGatewayFilterFactory(List<String> rateLimiterBeanNames) {
		super(null, new PrincipalNameKeyResolver());
		this.rateLimiters = new TreeSet<>();
		for (String name : rateLimiterBeanNames) {
			this.rateLimiters.add("#{@" + name + "}");
		}
	}

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public GatewayFilter apply(Config config) {
		if (config.getRateLimiter() == null) {
			throw new InvalidRateLimitConfigurationException(
					List.of(new ConfigurationProblem("route '" + config.getRouteId() + "' filter " + NAME
							+ " argument rate-limiter", null,
							"must name a rate limiter bean (defined: " + (this.rateLimiters.isEmpty() ? "none" : this.rateLimiters)
									+ ")")));
		}
		return super.apply(config);
	}

}
