package dev.ratelimit.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.NamedPolicies;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.web.HeaderStyle;
import dev.ratelimit.web.PolicyCombination;
import dev.ratelimit.web.RequestJudges;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.route.RouteDefinition;

/**
 * Checks at start-up what the gateway would otherwise only discover when it builds its
 * routes, lazily and perhaps only logging: that every policy's store is available, that
 * every {@code RateLimit} filter in the configured routes and default filters names
 * defined policies, each once, that can be judged together, and that no route has two
 * {@code RateLimit} filters. A live reload asks it the same of the new policies, against
 * the routes configured then, before putting them in force.
 */
public class RateLimitRouteValidator implements InitializingBean {

	static final String ROUTES = GatewayProperties.PREFIX + ".routes";

	static final String DEFAULT_FILTERS = GatewayProperties.PREFIX + ".default-filters";

	private final RateLimitPolicies policies;

	private final BucketStores stores;

	private final @Nullable GatewayProperties gatewayProperties;

	private final Set<String> rateLimiterBeanNames;

	private final HeaderStyle headerStyle;

	/**
	 * @param policies the validated policies
	 * @param stores the available stores
	 * @param gatewayProperties the gateway's configured routes, or {@code null} when
	 * there are none
	 * @param rateLimiterBeanNames the names of the application's {@code RateLimiter}
	 * beans, ours ({@code <policy>RateLimiter}) and its own
	 * @param headerStyle the rate limit headers responses carry, which the policies one
	 * filter names must be able to describe together
	 */
	public RateLimitRouteValidator(RateLimitPolicies policies, BucketStores stores,
			@Nullable GatewayProperties gatewayProperties, Set<String> rateLimiterBeanNames, HeaderStyle headerStyle) {
		this.policies = policies;
		this.stores = stores;
		this.gatewayProperties = gatewayProperties;
		this.rateLimiterBeanNames = Set.copyOf(rateLimiterBeanNames);
		this.headerStyle = headerStyle;
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
	 * defined policy or policies that cannot be judged together, a
	 * {@code RequestRateLimiter} filter naming no {@code RateLimiter} bean (which Spring
	 * would otherwise report only as a bean missing for "a component", once the gateway
	 * builds its routes).
	 * @param gatewayProperties the gateway's configured routes, or {@code null} when
	 * there are none
	 */
	public List<ConfigurationProblem> problems(RateLimitPolicies policies,
			@Nullable GatewayProperties gatewayProperties) {
		List<ConfigurationProblem> problems = new ArrayList<>(this.stores.missingStores(policies));
		if (gatewayProperties != null) {
			problems.addAll(filterProblems(policies.byId().keySet(), gatewayProperties, this.rateLimiterBeanNames));
			problems.addAll(settlingRateLimiterProblems(policies, gatewayProperties));
			problems.addAll(combinationProblems(policies, gatewayProperties));
		}
		return problems;
	}

	/**
	 * A {@code RateLimit} filter naming defined policies that cannot be judged together
	 * ({@link PolicyCombination}).
	 */
	private List<ConfigurationProblem> combinationProblems(RateLimitPolicies policies,
			GatewayProperties gatewayProperties) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		combinations(policies, DEFAULT_FILTERS, gatewayProperties.getDefaultFilters(), problems);
		List<RouteDefinition> routes = gatewayProperties.getRoutes();
		for (int i = 0; i < routes.size(); i++) {
			if (routes.get(i).isEnabled()) {
				combinations(policies, ROUTES + "[" + i + "].filters", routes.get(i).getFilters(), problems);
			}
		}
		return problems;
	}

	private void combinations(RateLimitPolicies policies, String path, List<FilterDefinition> filters,
			List<ConfigurationProblem> problems) {
		for (int i = 0; i < filters.size(); i++) {
			List<String> ids = FilterDefinitions.rateLimitPolicies(filters.get(i));
			if (ids == null || ids.size() < 2
					|| !NamedPolicies.problems(path, null, ids, policies.byId().keySet()).isEmpty()) {
				continue;
			}
			List<RateLimitPolicy> named = ids.stream().map(policies::policy).toList();
			problems.addAll(PolicyCombination.problems(this.headerStyle, named, path + "[" + i + "]",
					display(filters.get(i), ids)));
		}
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
		problems.addAll(SeveralRateLimitFilters.problems(gatewayProperties));
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
			List<String> ids = FilterDefinitions.rateLimitPolicies(filter);
			if (ids == null) {
				continue;
			}
			String where = path + "[" + i + "]";
			problems.addAll(NamedPolicies.problems(where, display(filter, ids), ids, policyIds));
			for (String argument : FilterDefinitions.otherArguments(filter)) {
				problems.add(new ConfigurationProblem(where + ".args." + argument,
						ConfigurationProblem.quoted(filter.getArgs().get(argument)),
						"must not be set: the " + RateLimitGatewayFilterFactory.NAME + " filter takes only "
								+ RateLimitGatewayFilterFactory.POLICIES_KEY + " (or "
								+ RateLimitGatewayFilterFactory.POLICY_KEY
								+ " for one), and reads every argument as policy ids"));
			}
		}
	}

	static String display(FilterDefinition filter, List<String> policyIds) {
		return filter.getName() + "=" + String.join(",", policyIds);
	}

}
