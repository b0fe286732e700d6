package dev.ratelimit.gateway;

import java.util.List;

import dev.ratelimit.policy.NamedPolicies;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
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
 * The {@code RateLimit} gateway filter: limits a route by one or more policies of
 * {@code ratelimit.policies}, judged together, writes rate limit headers on every
 * response and rejects requests over a limit with 429 and a problem body, before they
 * reach the upstream.
 * <p>
 * Shortcut form: {@code - RateLimit=orders}, or {@code - RateLimit=per-ip,global} for
 * several; long form: {@code name: RateLimit} with {@code args: { policies: [per-ip,
 * global] }}, or {@code args: { policy: orders }} for one. Every argument names policies
 * (the shortcut gathers them all into {@code policies}), each value one id or several
 * separated by commas. Everything a request needs (policies, stores, key resolution,
 * header values of each tier) is resolved when the route is built.
 */
public class RateLimitGatewayFilterFactory extends AbstractGatewayFilterFactory<RateLimitGatewayFilterFactory.Config> {

	/**
	 * The filter's name in route definitions.
	 */
	public static final String NAME = "RateLimit";

	/**
	 * The name of the argument that names one policy.
	 */
	public static final String POLICY_KEY = "policy";

	/**
	 * The name of the argument that names the route's policies, which every argument
	 * of the filter is gathered into.
	 */
	public static final String POLICIES_KEY = "policies";

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
	public ShortcutType shortcutType() {
		return ShortcutType.GATHER_LIST;
	}

	@Override
	public List<String> shortcutFieldOrder() {
		return List.of(POLICIES_KEY);
	}

	@Override
	public GatewayFilter apply(Config config) {
		// One snapshot for everything the route resolves: never a mix of two reloads.
		RateLimitPolicies policies = this.judges.policies();
		List<RateLimitPolicy> named = NamedPolicies.require(policies, NamedPolicies.ids(config.getPolicies()),
				"route '" + config.getRouteId() + "' filter " + NAME + " argument " + POLICIES_KEY);
		String routeId = (config.getRouteId() != null) ? config.getRouteId() : named.get(0).id();
		RequestJudge judge = this.judges.forRoute(policies, named, routeId, this.keyResolverBeans);
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

		private List<String> policies = List.of();

		private String routeId;

		/**
		 * The ids of the route's policies under {@code ratelimit.policies}, in the order
		 * they are decided; a value may list several ids separated by commas.
		 */
		public List<String> getPolicies() {
			return this.policies;
		}

		public Config setPolicies(List<String> policies) {
			this.policies = List.copyOf(policies);
			return this;
		}

		/**
		 * Name one policy.
		 */
		public Config setPolicy(String policy) {
			return setPolicies(List.of(policy));
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
