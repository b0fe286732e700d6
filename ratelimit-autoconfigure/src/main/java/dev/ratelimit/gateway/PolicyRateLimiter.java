package dev.ratelimit.gateway;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.UnknownPolicy;
import dev.ratelimit.web.RequestJudge;
import dev.ratelimit.web.RequestJudges;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;

import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.http.HttpHeaders;

/**
 * One policy of {@code ratelimit.policies} as a Spring Cloud Gateway
 * {@link RateLimiter}, so that a {@code RequestRateLimiter} route switches to our
 * algorithms and stores with {@code rate-limiter: "#{@<policy>RateLimiter}"}.
 * <p>
 * The id the route's {@code KeyResolver} yields is the bucket key. {@code isAllowed}
 * sees no request, so the tier comes from that id: an id listed under
 * {@code ratelimit.tiers.api-keys} gets its tier, any other the default tier. Every
 * route using the same policy shares each key's quota, as with the {@code RateLimit}
 * filter. The response carries the rate limit headers of {@code ratelimit.headers},
 * and {@code Retry-After} when the request is rejected; {@code RequestRateLimiter}
 * answers the rejection with its own status and an empty body. The decision is the
 * {@link RequestJudge}'s, as for the {@code RateLimit} filter.
 */
public final class PolicyRateLimiter implements RateLimiter<RateLimitPolicy> {

	/**
	 * What the name of each policy's bean adds to the policy id:
	 * {@code ordersRateLimiter} for the policy {@code orders}.
	 */
	public static final String BEAN_NAME_SUFFIX = "RateLimiter";

	private static final Log logger = LogFactory.getLog(PolicyRateLimiter.class);

	private final String policyId;

	private final RequestJudges judges;

	/**
	 * Everything a decision uses, from one snapshot of the policies, replaced whole on a
	 * live reload: a request reads it once, so it never sees a mix of two snapshots.
	 */
	private volatile Snapshot snapshot;

	private volatile boolean removalLogged;

	/**
	 * @param judges builds the judges of the policy
	 * @param policies the snapshot of the policies the limiter starts with
	 * @param policy the policy, one of {@code policies}
	 */
	private PolicyRateLimiter(RequestJudges judges, RateLimitPolicies policies, RateLimitPolicy policy) {
		this.policyId = policy.id();
		this.judges = judges;
		this.snapshot = new Snapshot(judges, policies, policy);
	}

	/**
	 * A policy as a Spring Cloud Gateway {@code RateLimiter}, for
	 * {@code RequestRateLimiter} routes.
	 * @param judges builds the policy's judges
	 * @param policyId the id of a policy under {@code ratelimit.policies}
	 * @throws InvalidRateLimitConfigurationException when there is no such policy or
	 * its store is not available
	 */
	public static PolicyRateLimiter of(RequestJudges judges, String policyId) {
		RateLimitPolicies policies = judges.policies();
		RateLimitPolicy policy = UnknownPolicy.require(policies, policyId,
				"rate limiter bean '" + policyId + BEAN_NAME_SUFFIX + "'");
		return new PolicyRateLimiter(judges, policies, policy);
	}

	/**
	 * Judge the next requests under reloaded, validated policies. A policy the reload
	 * removed keeps the settings it had, with one warning: a {@code RequestRateLimiter}
	 * route still naming this bean would otherwise fail every request (a reload that
	 * removes a policy such a route names in the gateway's properties is refused before
	 * it gets here).
	 * @param policies the policies now in force
	 */
	public void reload(RateLimitPolicies policies) {
		RateLimitPolicy policy = policies.policy(this.policyId);
		if (policy == null) {
			if (!this.removalLogged) {
				this.removalLogged = true;
				logger.warn("Rate limit policy '" + this.policyId + "' was removed by a reload, but its RateLimiter bean '"
						+ this.policyId + BEAN_NAME_SUFFIX + "' stays until a restart: it keeps judging requests under"
						+ " the policy's last settings");
			}
			return;
		}
		this.snapshot = new Snapshot(this.judges, policies, policy);
		this.removalLogged = false;
	}

	/**
	 * The policy this limiter applies.
	 */
	public String policyId() {
		return this.policyId;
	}

	@Override
	public Mono<Response> isAllowed(String routeId, String id) {
		return this.snapshot.judge(routeId).judge(id, PolicyRateLimiter::response);
	}

	private static Response response(boolean allowed, HttpHeaders headers) {
		return new Response(allowed, headers.toSingleValueMap());
	}

	/**
	 * There is no per-route configuration: the policy is the configuration.
	 */
	@Override
	public Map<String, RateLimitPolicy> getConfig() {
		return Map.of();
	}

	@Override
	public Class<RateLimitPolicy> getConfigClass() {
		return RateLimitPolicy.class;
	}

	/**
	 * The policy, immutable, so sharing it is safe.
	 */
	@Override
	public RateLimitPolicy newConfig() {
		return this.snapshot.policy;
	}

	@Override
	public String toString() {
		return "PolicyRateLimiter[policy=" + this.policyId + ", store=" + this.snapshot.storeName + "]";
	}

	/**
	 * What one snapshot of the policies makes of this limiter's policy: a judge per route
	 * that asks, each told of its own decisions.
	 */
	private static final class Snapshot {

		private final RequestJudges judges;

		private final RateLimitPolicies policies;

		private final RateLimitPolicy policy;

		private final String storeName;

		private final Map<String, RequestJudge> byRouteId = new ConcurrentHashMap<>();

		/**
		 * @throws InvalidRateLimitConfigurationException when the policy's store is not
		 * available or its headers could not describe a tier
		 */
		Snapshot(RequestJudges judges, RateLimitPolicies policies, RateLimitPolicy policy) {
			this.judges = judges;
			this.policies = policies;
			this.policy = policy;
			// Built once here so that a policy that cannot be judged fails now, not on a
			// request; its route judges are built from the same snapshot. A policy that
			// settles after the response gets a bean all the same, which only a route
			// naming it would use: the route checks refuse such a route at start-up.
			this.storeName = RequestJudges.judgesKeys(policy)
					? judges.forKeys(policies, policy, policy.id()).storeName() : policy.store().configName();
		}

		RequestJudge judge(String routeId) {
			RequestJudge judge = this.byRouteId.get(routeId);
			return (judge != null) ? judge
					: this.byRouteId.computeIfAbsent(routeId,
							(id) -> this.judges.forKeys(this.policies, this.policy, id));
		}

	}

}
