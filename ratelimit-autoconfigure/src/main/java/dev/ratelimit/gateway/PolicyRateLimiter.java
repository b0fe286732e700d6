package dev.ratelimit.gateway;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.algorithm.MonotonicClock;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.ThrottledLog;
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

	private static final ThrottledLog storeFailures = new ThrottledLog(LogFactory.getLog(PolicyRateLimiter.class));

	private static final ThrottledLog listenerFailures = new ThrottledLog(LogFactory.getLog(PolicyRateLimiter.class));

	private final RateLimitPolicy policy;

	private final BucketDecider store;

	private final Map<String, String> tiersByApiKey;

	private final Map<String, TierPlan> plansByTier;

	private final TierPlan defaultPlan;

	private final RateLimitListener[] listeners;

	PolicyRateLimiter(RateLimitPolicy policy, BucketDecider store, Map<String, String> tiersByApiKey,
			Map<String, TierPlan> plansByTier, RateLimitListener[] listeners) {
		this.policy = policy;
		this.store = store;
		this.tiersByApiKey = tiersByApiKey;
		this.plansByTier = Map.copyOf(plansByTier);
		this.defaultPlan = plansByTier.get(policy.defaultTier().name());
		this.listeners = listeners;
	}

	/**
	 * The policy this limiter applies.
	 */
	public String policyId() {
		return this.policy.id();
	}

	/**
	 * The policy whose bean a {@code RequestRateLimiter} filter definition names in its
	 * {@code rate-limiter} argument ({@code "#{@ordersRateLimiter}"}), or {@code null}
	 * when it is another filter or names another rate limiter.
	 */
	public static String policyId(FilterDefinition definition) {
		if (!REQUEST_RATE_LIMITER.equals(definition.getName())) {
			return null;
		}
		String rateLimiter = definition.getArgs().get("rate-limiter");
		if (rateLimiter == null) {
			rateLimiter = definition.getArgs().get("rateLimiter");
		}
		Matcher reference = (rateLimiter != null) ? BEAN_REFERENCE.matcher(rateLimiter.strip()) : null;
		if (reference == null || !reference.matches()) {
			return null;
		}
		String beanName = reference.group(1);
		return (beanName.endsWith(BEAN_NAME_SUFFIX) && beanName.length() > BEAN_NAME_SUFFIX.length())
				? beanName.substring(0, beanName.length() - BEAN_NAME_SUFFIX.length()) : null;
	}

	@Override
	public Mono<Response> isAllowed(String routeId, String id) {
		String tierName = this.tiersByApiKey.get(id);
		TierPlan plan = (tierName != null) ? this.plansByTier.getOrDefault(tierName, this.defaultPlan)
				: this.defaultPlan;
		BucketId bucket = new BucketId(this.policy.id(), plan.tier().name(), id);
		long start = MonotonicClock.SYSTEM.nanoTime();
		Verdict now;
		try {
			now = this.store.acquireNow(bucket, plan.tier(), this.policy.cost());
		}
		catch (RuntimeException ex) {
			now = storeFailed(routeId, ex);
		}
		if (now != null) {
			return Mono.just(respond(routeId, plan, now, start));
		}
		return this.store.acquire(bucket, plan.tier(), this.policy.cost())
			.switchIfEmpty(Mono.fromSupplier(() -> storeFailed(routeId, null)))
			.onErrorResume((error) -> Mono.just(storeFailed(routeId, error)))
			.map((verdict) -> respond(routeId, plan, verdict, start));
	}

	private Response respond(String routeId, TierPlan plan, Verdict verdict, long start) {
		notifyListeners(routeId, plan, Outcome.of(verdict, this.policy.shadow()),
				MonotonicClock.SYSTEM.nanoTime() - start);
		HttpHeaders headers = new HttpHeaders();
		if (verdict.limitCount() > 0) {
			plan.headers().write(headers, verdict);
		}
		boolean reject = !verdict.allowed() && !this.policy.shadow();
		if (reject) {
			// A 429 may say how long to wait (RFC 6585 section 4), in delay-seconds
			// (RFC 9110 section 10.2.3).
			headers.set(HttpHeaders.RETRY_AFTER, Long.toString(verdict.retryAfterSeconds()));
		}
		return new Response(!reject, headers.toSingleValueMap());
	}

	private Verdict storeFailed(String routeId, Throwable error) {
		storeFailures.warn(() -> "Rate limit store '" + this.store.name() + "' failed for policy '" + this.policy.id()
				+ "' on route '" + routeId + "'; letting the request through", error);
		return Verdict.FAIL_OPEN;
	}

	private void notifyListeners(String routeId, TierPlan plan, Outcome outcome, long decisionNanos) {
		for (RateLimitListener listener : this.listeners) {
			try {
				listener.onDecision(this.policy.id(), plan.tier().name(), routeId, this.store.name(), outcome,
						decisionNanos);
			}
			catch (RuntimeException ex) {
				listenerFailures.warn(() -> "Rate limit listener " + listener + " failed", ex);
			}
		}
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
		return this.policy;
	}

	@Override
	public String toString() {
		return "PolicyRateLimiter[policy=" + this.policy.id() + ", store=" + this.store.name() + "]";
	}

}
