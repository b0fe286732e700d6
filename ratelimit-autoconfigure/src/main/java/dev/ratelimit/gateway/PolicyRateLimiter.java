package dev.ratelimit.gateway;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.algorithm.MonotonicClock;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;

import org.springframework.cloud.gateway.filter.FilterDefinition;
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
 * answers the rejection with its own status and an empty body.
 */
public final class PolicyRateLimiter implements RateLimiter<RateLimitPolicy> {

	/**
	 * What the name of each policy's bean adds to the policy id:
	 * {@code ordersRateLimiter} for the policy {@code orders}.
	 */
	public static final String BEAN_NAME_SUFFIX = "RateLimiter";

	private static final String REQUEST_RATE_LIMITER = "RequestRateLimiter";

	/**
	 * A bean reference as a route argument: {@code #{@name}} or {@code #{@'name'}}.
	 */
	private static final Pattern BEAN_REFERENCE = Pattern.compile("#\\{\\s*@'?([^'}]+?)'?\\s*}");

	private static final Log logger = LogFactory.getLog(PolicyRateLimiter.class);

	private static final ThrottledLog storeFailures = new ThrottledLog(LogFactory.getLog(PolicyRateLimiter.class));

	private final String policyId;

	private final RateLimitEnforcers enforcers;

	/**
	 * Everything a decision uses, from one snapshot of the policies, replaced whole on a
	 * live reload: a request reads it once, so it never sees a mix of two snapshots.
	 */
	private volatile Snapshot snapshot;

	private volatile boolean removalLogged;

	/**
	 * @param enforcers builds the stores, plans and listeners of the policy
	 * @param policies the snapshot of the policies the limiter starts with
	 * @param policy the policy, one of {@code policies}
	 */
	PolicyRateLimiter(RateLimitEnforcers enforcers, RateLimitPolicies policies, RateLimitPolicy policy) {
		this.policyId = policy.id();
		this.enforcers = enforcers;
		this.snapshot = Snapshot.of(enforcers, policies, policy);
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
		this.snapshot = Snapshot.of(this.enforcers, policies, policy);
		this.removalLogged = false;
	}

	/**
	 * The policy this limiter applies.
	 */
	public String policyId() {
		return this.policyId;
	}

	/**
	 * The policy whose bean a {@code RequestRateLimiter} filter definition names in its
	 * {@code rate-limiter} argument ({@code "#{@ordersRateLimiter}"}), or {@code null}
	 * when it is another filter or names another rate limiter.
	 */
	public static String policyId(FilterDefinition definition) {
		String beanName = rateLimiterBeanName(definition);
		return (beanName != null && beanName.endsWith(BEAN_NAME_SUFFIX) && beanName.length() > BEAN_NAME_SUFFIX.length())
				? beanName.substring(0, beanName.length() - BEAN_NAME_SUFFIX.length()) : null;
	}

	/**
	 * The bean a {@code RequestRateLimiter} filter definition names in its
	 * {@code rate-limiter} argument ({@code "#{@ordersRateLimiter}"}), or {@code null}
	 * when it is another filter or its rate limiter is not a bean reference.
	 */
	public static String rateLimiterBeanName(FilterDefinition definition) {
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
	static String rateLimiterArgument(FilterDefinition definition) {
		String rateLimiter = definition.getArgs().get("rate-limiter");
		return (rateLimiter != null) ? rateLimiter : definition.getArgs().get("rateLimiter");
	}

	@Override
	public Mono<Response> isAllowed(String routeId, String id) {
		Snapshot current = this.snapshot;
		String tierName = current.tiersByApiKey().get(id);
		TierPlan plan = (tierName != null) ? current.plansByTier().getOrDefault(tierName, current.defaultPlan())
				: current.defaultPlan();
		RateLimitPolicy policy = current.policy();
		BucketDecider store = current.store();
		BucketId bucket = new BucketId(policy.id(), plan.tier().name(), id);
		long start = MonotonicClock.SYSTEM.nanoTime();
		Verdict now;
		try {
			now = store.acquireNow(bucket, plan.tier(), policy.cost());
		}
		catch (RuntimeException ex) {
			now = storeFailed(current, routeId, ex);
		}
		if (now != null) {
			return Mono.just(respond(current, routeId, plan, now, start));
		}
		return store.acquire(bucket, plan.tier(), policy.cost())
			.switchIfEmpty(Mono.fromSupplier(() -> storeFailed(current, routeId, null)))
			.onErrorResume((error) -> Mono.just(storeFailed(current, routeId, error)))
			.map((verdict) -> respond(current, routeId, plan, verdict, start));
	}

	private Response respond(Snapshot current, String routeId, TierPlan plan, Verdict verdict, long start) {
		notifyListeners(current, routeId, plan, Outcome.of(verdict, current.policy().shadow()),
				MonotonicClock.SYSTEM.nanoTime() - start);
		HttpHeaders headers = new HttpHeaders();
		if (verdict.limitCount() > 0) {
			plan.headers().write(headers, verdict);
		}
		boolean reject = !verdict.allowed() && !current.policy().shadow();
		if (reject) {
			// A 429 may say how long to wait (RFC 6585 section 4), in delay-seconds
			// (RFC 9110 section 10.2.3).
			headers.set(HttpHeaders.RETRY_AFTER, HeaderNumbers.of(verdict.retryAfterSeconds()));
		}
		return new Response(!reject, headers.toSingleValueMap());
	}

	private Verdict storeFailed(Snapshot current, String routeId, Throwable error) {
		storeFailures.warn(() -> "Rate limit store '" + current.storeName() + "' failed for policy '"
				+ this.policyId + "' on route '" + routeId + "'; letting the request through", error);
		return Verdict.FAIL_OPEN;
	}

	private void notifyListeners(Snapshot current, String routeId, TierPlan plan, Outcome outcome,
			long decisionNanos) {
		current.listeners()
			.notify(this.policyId, plan.tier().name(), routeId, current.storeName(), outcome, decisionNanos);
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
		return this.snapshot.policy();
	}

	@Override
	public String toString() {
		return "PolicyRateLimiter[policy=" + this.policyId + ", store=" + this.snapshot.storeName() + "]";
	}

	/**
	 * What one snapshot of the policies makes of this limiter's policy.
	 *
	 * @param storeName the store's name, read once: listeners are told it with every
	 * decision
	 */
	private record Snapshot(RateLimitPolicy policy, BucketDecider store, String storeName,
			Map<String, String> tiersByApiKey, Map<String, TierPlan> plansByTier, TierPlan defaultPlan,
			DecisionListeners listeners) {

		/**
		 * @throws InvalidRateLimitConfigurationException when the policy's store is not
		 * available or its headers could not describe a tier
		 */
		static Snapshot of(RateLimitEnforcers enforcers, RateLimitPolicies policies, RateLimitPolicy policy) {
			Map<String, TierPlan> plans = Map.copyOf(enforcers.plans(policy));
			BucketDecider store = enforcers.decider(policy);
			return new Snapshot(policy, store, store.name(), policies.tiersByApiKey(), plans,
					plans.get(policy.defaultTier().name()), enforcers.listeners());
		}

	}

}
