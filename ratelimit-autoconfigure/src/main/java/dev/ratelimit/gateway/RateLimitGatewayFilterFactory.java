package dev.ratelimit.gateway;

import java.util.List;

import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.UnknownPolicy;
import dev.ratelimit.web.KeyResolverBeans;
import dev.ratelimit.web.RequestJudge;
import dev.ratelimit.web.RequestJudges;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.NettyWriteResponseFilter;
import org.springframework.cloud.gateway.filter.OrderedGatewayFilter;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;
import org.springframework.cloud.gateway.support.HasRouteId;

/**
 * The {@code RateLimit} gateway filter: limits a route by a policy of
 * {@code ratelimit.policies}, writes rate limit headers on every response and rejects
 * requests over the limit with 429 and a problem body, before they reach the upstream.
 * <p>
 * Shortcut form: {@code - RateLimit=orders}; long form: {@code name: RateLimit} with
 * {@code args: { policy: orders }}. Everything a request needs (policy, store, key
 * resolution, header values of each tier) is resolved when the route is built.
 */
public class RateLimitGatewayFilterFactory extends AbstractGatewayFilterFactory<RateLimitGatewayFilterFactory.Config> {

	/**
	 * The filter's name in route definitions.
	 */
	public static final String NAME = "RateLimit";

	/**
	 * The name of the argument that names the policy.
	 */
	public static final String POLICY_KEY = "policy";

	private final RequestJudges judges;

	private final KeyResolverBeans keyResolverBeans;

	/**
	 * @param judges builds each route's request path
	 * @param beanFactory where {@code "#{@beanName}"} key resolvers are looked up
	 */
	public RateLimitGatewayFilterFactory(RequestJudges judges, BeanFactory beanFactory) {
		super(Config.class);
		this.judges = judges;
		this.keyResolverBeans = new GatewayKeyResolverBeans(beanFactory);
	}

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public List<String> shortcutFieldOrder() {
		return List.of(POLICY_KEY);
	}

	@Override
	public GatewayFilter apply(Config config) {
		// One snapshot for everything the route resolves: never a mix of two reloads.
		RateLimitPolicies policies = this.judges.policies();
		RateLimitPolicy policy = UnknownPolicy.require(policies, config.getPolicy(),
				"route '" + config.getRouteId() + "' filter " + NAME + " argument " + POLICY_KEY);
		String routeId = (config.getRouteId() != null) ? config.getRouteId() : policy.id();
		RequestJudge judge = this.judges.forRoute(policies, policy, routeId, this.keyResolverBeans);
		GatewayFilter filter = new RateLimitGatewayFilter(judge);
		// A filter after NettyWriteResponseFilter in the chain ends when the upstream's
		// headers arrive, before the body is written, and never sees the response it
		// writes: one that settles after the response goes before it, as the gateway's
		// ModifyResponseBody does, and so before the route's other filters.
		return judge.settlesAfterResponse()
				? new OrderedGatewayFilter(filter, NettyWriteResponseFilter.WRITE_RESPONSE_FILTER_ORDER - 1) : filter;
	}

	/**
	 * Configuration of one route's RateLimit filter.
	 */
	public static class Config implements HasRouteId {

		private String policy;

		private String routeId;

		/**
		 * The id of the policy under {@code ratelimit.policies}.
		 */
		public String getPolicy() {
			return this.policy;
		}

		public Config setPolicy(String policy) {
			this.policy = policy;
			return this;
		}

		@Override
		public String getRouteId() {
			return this.routeId;
		}

		@Override
		public void setRouteId(String routeId) {
			this.routeId = routeId;
		}

	}

}
