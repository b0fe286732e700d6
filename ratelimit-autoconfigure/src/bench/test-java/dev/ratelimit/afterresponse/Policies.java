package dev.ratelimit.afterresponse;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The measured gateway's routes and policies as properties, each route {@code /NAME/**}
 * to the upstream behind the policy {@code NAME}, a token bucket keyed by the
 * {@code X-Client} header.
 */
final class Policies {

	private final List<String> properties = new ArrayList<>();

	private int routes;

	private Policies(String store) {
		this.properties.add("ratelimit.store=" + store);
	}

	static Policies on(String store) {
		return new Policies(store);
	}

	/**
	 * A route whose policy takes {@code estimate} on admission and, unless
	 * {@code costFromResponse} is {@code null}, charges what the response reports.
	 */
	Policies route(String name, String upstream, long estimate, @Nullable String costFromResponse, long capacity,
			long refillRate, String refillPeriod) {
		String route = "spring.cloud.gateway.server.webflux.routes[" + this.routes++ + "].";
		this.properties.add(route + "id=" + name);
		this.properties.add(route + "uri=" + upstream);
		this.properties.add(route + "predicates[0]=Path=/" + name + "/**");
		this.properties.add(route + "filters[0]=RateLimit=" + name);
		String policy = "ratelimit.policies." + name + ".";
		this.properties.add(policy + "key=header:X-Client");
		this.properties.add(policy + "cost=" + estimate);
		if (costFromResponse != null) {
			this.properties.add(policy + "cost-from-response=" + costFromResponse);
		}
		String limit = policy + "tiers.anonymous[0].";
		this.properties.add(limit + "algorithm=token-bucket");
		this.properties.add(limit + "capacity=" + capacity);
		this.properties.add(limit + "refill-rate=" + refillRate);
		this.properties.add(limit + "refill-period=" + refillPeriod);
		return this;
	}

	Policies redis(int port) {
		this.properties.add("spring.data.redis.host=127.0.0.1");
		this.properties.add("spring.data.redis.port=" + port);
		return this;
	}

	List<String> list() {
		return List.copyOf(this.properties);
	}

}
