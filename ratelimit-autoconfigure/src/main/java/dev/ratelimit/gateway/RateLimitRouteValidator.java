package dev.ratelimit.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.UnknownPolicy;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.web.RequestJudges;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.route.RouteDefinition;

/**
 * Checks at start-up what the gateway would otherwise only discover when it builds its
 * routes, lazily and perhaps only logging: that every policy's store is available and
 * that every {@code RateLimit} filter in the configured routes and default filters
 * names a defined policy. A live reload asks it the same of the new policies, against
 * the routes configured then, before putting them in force.
 */
public class RateLimitRouteValidator implements InitializingBean {

	private static final String ROUTES = GatewayProperties.PREFIX + ".routes";

	private static final String DEFAULT_FILTERS = GatewayProperties.PREFIX + ".default-filters";

	private final RateLimitPolicies policies;

	private final BucketStores stores;

	private final @Nullable GatewayProperties gatewayProperties;

	private final Set<String> rateLimiterBeanNames;

	/**
	 * @param policies the validated policies
	 * @param stores the available stores
	 * @param gatewayProperties the gateway's configured routes, or {@code null} when
	 * there are none
	 * @param rateLimiterBeanNames the names of the application's {@code RateLimiter}
	 * beans, ours ({@code <policy>RateLimiter}) and its own
	 */
	public RateLimitRouteValidator(RateLimitPolicies policies, BucketStores stores,
			@Nullable GatewayProperties gatewayProperties, Set<String> rateLimiterBeanNames) {
		this.policies = policies;
		this.stores = stores;
		this.gatewayProperties = gatewayProperties;
		this.rateLimiterBeanNames = Set.copyOf(rateLimiterBeanNames);
	}

	@Override
	public void afterPropertiesSet() {
		List<ConfigurationProblem> problems = problems();
		if (!problems.isEmpty()) {
			throw new InvalidRateLimitConfigurationException(problems);
		}
	}

	List<ConfigurationProblem> problems() {
		return problems(this.policies, this.gatewayProperties);
	}

	/**
	 * What would be wrong with {@code policies} in force: a policy whose store is not
	 * available, a {@code RateLimit} filter of {@code gatewayProperties} naming no
	 * defined policy, a {@code RequestRateLimiter} filter naming no {@code RateLimiter}
	 * bean (which Spring would otherwise report only as a bean missing for "a
	 * component", once the gateway builds its routes).
	 * @param gatewayProperties the gateway's configured routes, or {@code null} when
	 * there are none
	 */
	public List<ConfigurationProblem> problems(RateLimitPolicies policies,
			@Nullable GatewayProperties gatewayProperties) {
		List<ConfigurationProblem> problems = new ArrayList<>(this.stores.missingStores(policies));
		if (gatewayProperties != null) {
			problems.addAll(filterProblems(policies.byId().keySet(), gatewayProperties, this.rateLimiterBeanNames));
			problems.addAll(settlingRateLimiterProblems(policies, gatewayProperties));
		}
		return problems;
	}

	/**
	 * A {@code RequestRateLimiter} filter naming the {@code RateLimiter} bean of a policy
	 * that settles after the response or limits requests in flight, or that applies to
	 * some methods or paths only or exempts client addresses: the bean never sees the
	 * response, nor the request, so its judge refuses such a policy.
	 */
	private static List<ConfigurationProblem> settlingRateLimiterProblems(RateLimitPolicies policies,
			GatewayProperties gatewayProperties) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		settlingRateLimiters(policies, DEFAULT_FILTERS, gatewayProperties.getDefaultFilters(), problems);
		List<RouteDefinition> routes = gatewayProperties.getRoutes();
		for (int i = 0; i < routes.size(); i++) {
			if (routes.get(i).isEnabled()) {
				settlingRateLimiters(policies, ROUTES + "[" + i + "].filters", routes.get(i).getFilters(), problems);
			}
		}
		return problems;
	}

	private static void settlingRateLimiters(RateLimitPolicies policies, String path, List<FilterDefinition> filters,
			List<ConfigurationProblem> problems) {
		for (int i = 0; i < filters.size(); i++) {
			String policyId = FilterDefinitions.rateLimiterPolicy(filters.get(i));
			RateLimitPolicy policy = (policyId != null) ? policies.policy(policyId) : null;
			if (policy != null && !RequestJudges.judgesKeys(policy)) {
				problems.add(new ConfigurationProblem(path + "[" + i + "]",
						filters.get(i).getName() + " rate-limiter=#{@" + policyId + PolicyRateLimiter.BEAN_NAME_SUFFIX
								+ "}",
						policy.scope().needsRequest() ? scopedRule(policyId) : "must name the RateLimiter bean of "
								+ "a policy settled before forwarding: policy '" + policyId
								+ "' settles its requests once their response is known (count-responses, "
								+ "cost-from-response or an algorithm: concurrency limit), which RequestRateLimiter "
								+ "never shows it; use the RateLimit filter with policy=" + policyId));
			}
		}
	}

	private static String scopedRule(String policyId) {
		return "must name the RateLimiter bean of a policy that applies to every request: policy '" + policyId
				+ "' applies to some methods or paths only, or exempts client addresses (methods, paths, "
				+ "exempt.addresses), and RequestRateLimiter shows its RateLimiter only a key; use the RateLimit "
				+ "filter with policy=" + policyId;
	}

	/**
	 * What would be wrong with the filters of {@code gatewayProperties} under the
	 * policies {@code policyIds}: a {@code RateLimit} filter naming no defined policy, a
	 * {@code RequestRateLimiter} filter naming none of {@code rateLimiterBeanNames}.
	 * Also asked before the beans exist, of the policies' ids whether or not they are
	 * valid, so that these problems are in one report with those of the properties.
	 */
	public static List<ConfigurationProblem> filterProblems(Set<String> policyIds,
			GatewayProperties gatewayProperties, Set<String> rateLimiterBeanNames) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		checkFilters(policyIds, DEFAULT_FILTERS, gatewayProperties.getDefaultFilters(), rateLimiterBeanNames,
				problems);
		List<RouteDefinition> routes = gatewayProperties.getRoutes();
		for (int i = 0; i < routes.size(); i++) {
			// The gateway never builds a disabled route.
			if (routes.get(i).isEnabled()) {
				checkFilters(policyIds, ROUTES + "[" + i + "].filters", routes.get(i).getFilters(),
						rateLimiterBeanNames, problems);
			}
		}
		return problems;
	}

	private static void checkFilters(Set<String> policyIds, String path, List<FilterDefinition> filters,
			Set<String> rateLimiterBeanNames, List<ConfigurationProblem> problems) {
		checkRateLimitFilters(policyIds, path, filters, problems);
		for (int i = 0; i < filters.size(); i++) {
			String beanName = FilterDefinitions.rateLimiterBeanName(filters.get(i));
			if (beanName != null && !rateLimiterBeanNames.contains(beanName)) {
				TreeSet<String> defined = new TreeSet<>();
				policyIds.forEach((id) -> defined.add(id + PolicyRateLimiter.BEAN_NAME_SUFFIX));
				problems.add(new ConfigurationProblem(path + "[" + i + "]",
						filters.get(i).getName() + " rate-limiter=" + FilterDefinitions.rateLimiterArgument(filters.get(i)),
						"must name a RateLimiter bean: no bean is named '" + beanName + "' (the policies' beans: "
								+ defined + ")"));
			}
		}
	}

	/**
	 * What would be wrong with a reload from {@code inForce} to {@code next}: a
	 * {@code RequestRateLimiter} filter of {@code gatewayProperties} naming the
	 * {@code <policy>RateLimiter} bean of a policy the reload removes. A name that was
	 * no policy before is the application's own bean, and none of ours to judge.
	 * @param gatewayProperties the gateway's configured routes
	 */
	public List<ConfigurationProblem> rateLimiterProblems(RateLimitPolicies inForce, RateLimitPolicies next,
			GatewayProperties gatewayProperties) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		checkRateLimiters(inForce, next, DEFAULT_FILTERS, gatewayProperties.getDefaultFilters(), problems);
		List<RouteDefinition> routes = gatewayProperties.getRoutes();
		for (int i = 0; i < routes.size(); i++) {
			if (routes.get(i).isEnabled()) {
				checkRateLimiters(inForce, next, ROUTES + "[" + i + "].filters", routes.get(i).getFilters(),
						problems);
			}
		}
		return problems;
	}

	private static void checkRateLimiters(RateLimitPolicies inForce, RateLimitPolicies next, String path,
			List<FilterDefinition> filters, List<ConfigurationProblem> problems) {
		for (int i = 0; i < filters.size(); i++) {
			String policyId = FilterDefinitions.rateLimiterPolicy(filters.get(i));
			if (policyId != null && inForce.policy(policyId) != null && next.policy(policyId) == null) {
				problems.add(new ConfigurationProblem(path + "[" + i + "]",
						filters.get(i).getName() + " rate-limiter=#{@" + policyId + PolicyRateLimiter.BEAN_NAME_SUFFIX
								+ "}",
						"must name the RateLimiter bean of a policy defined under ratelimit.policies: policy '"
								+ policyId + "' would be removed (defined: " + new TreeSet<>(next.byId().keySet())
								+ ")"));
			}
		}
	}

	private static void checkRateLimitFilters(Set<String> policyIds, String path, List<FilterDefinition> filters,
			List<ConfigurationProblem> problems) {
		for (int i = 0; i < filters.size(); i++) {
			FilterDefinition filter = filters.get(i);
			if (!RateLimitGatewayFilterFactory.NAME.equals(filter.getName())) {
				continue;
			}
			String policyId = FilterDefinitions.rateLimitPolicy(filter);
			if (policyId == null || !policyIds.contains(policyId)) {
				problems.add(UnknownPolicy.problem(path + "[" + i + "]", display(filter, policyId), policyIds));
			}
		}
	}

	private static String display(FilterDefinition filter, @Nullable String policyId) {
		return filter.getName() + "=" + ((policyId != null) ? policyId : "");
	}

}
