package dev.ratelimit.shaping;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The properties of the measured gateways' routes and policies, as a user would write
 * them in YAML. Every policy has one client, named by the {@code X-Client} header.
 */
final class GatewayProperties {

	private final List<String> properties = new ArrayList<>();

	private int routes;

	private GatewayProperties() {
	}

	static GatewayProperties on(String store) {
		GatewayProperties properties = new GatewayProperties();
		properties.properties.add("ratelimit.store=" + store);
		return properties;
	}

	/**
	 * A route from {@code /path/**} to the upstream, limited by {@code policy} unless
	 * that is {@code null}.
	 */
	GatewayProperties route(String path, String upstream, @Nullable String policy) {
		String prefix = "spring.cloud.gateway.server.webflux.routes[" + this.routes++ + "].";
		this.properties.add(prefix + "id=" + path);
		this.properties.add(prefix + "uri=" + upstream);
		this.properties.add(prefix + "predicates[0]=Path=/" + path + "/**");
		if (policy != null) {
			this.properties.add(prefix + "filters[0]=RateLimit=" + policy);
		}
		return this;
	}

	/**
	 * A policy of one leaky bucket, shaping when {@code maxDelay} is given, metering
	 * otherwise.
	 */
	GatewayProperties leakyBucket(String policy, long capacity, double drainRate, String drainPeriod,
			@Nullable String maxDelay) {
		String limit = limit(policy);
		this.properties.add(limit + "algorithm=leaky-bucket");
		this.properties.add(limit + "capacity=" + capacity);
		this.properties.add(limit + "drain-rate=" + drainRate);
		this.properties.add(limit + "drain-period=" + drainPeriod);
		if (maxDelay != null) {
			this.properties.add(limit + "shaping.max-delay=" + maxDelay);
		}
		return this;
	}

	/**
	 * A metering policy that never refuses within a run, so that its route pays for a
	 * decision and nothing else.
	 */
	GatewayProperties neverRefusing(String policy) {
		String limit = limit(policy);
		this.properties.add(limit + "algorithm=token-bucket");
		this.properties.add(limit + "capacity=1000000000");
		this.properties.add(limit + "refill-rate=1000000000");
		this.properties.add(limit + "refill-period=1h");
		return this;
	}

	GatewayProperties redis(int port) {
		this.properties.add("spring.data.redis.host=127.0.0.1");
		this.properties.add("spring.data.redis.port=" + port);
		return this;
	}

	private String limit(String policy) {
		this.properties.add("ratelimit.policies." + policy + ".key=header:X-Client");
		return "ratelimit.policies." + policy + ".tiers.anonymous[0].";
	}

	List<String> list() {
		return List.copyOf(this.properties);
	}

}
