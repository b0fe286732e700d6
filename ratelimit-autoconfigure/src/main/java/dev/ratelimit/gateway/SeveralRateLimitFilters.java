package dev.ratelimit.gateway;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.policy.ConfigurationProblem;

import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.route.RouteDefinition;

/**
 * Refuses a route with more than one {@code RateLimit} filter, counting the default
 * filters, which apply to every route. Two filters would judge a request one after the
 * other, each on its own: the second refusing without giving back what the first took,
 * each writing its own headers over the other's. One filter naming every policy judges
 * them together ({@code RateLimit=per-ip,global}), so the problem names that filter.
 */
final class SeveralRateLimitFilters {

	private SeveralRateLimitFilters() {
	}

	/**
	 * A problem for each {@code RateLimit} filter after a route's first, the default
	 * filters counted first, as their own once.
	 */
	static List<ConfigurationProblem> problems(GatewayProperties gatewayProperties) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		List<Found> defaults = found(RateLimitRouteValidator.DEFAULT_FILTERS, gatewayProperties.getDefaultFilters());
		addProblems(defaults, "every route", problems);
		List<RouteDefinition> routes = gatewayProperties.getRoutes();
		for (int i = 0; i < routes.size(); i++) {
			RouteDefinition route = routes.get(i);
			List<Found> own = found(RateLimitRouteValidator.ROUTES + "[" + i + "].filters", route.getFilters());
			if (!route.isEnabled() || own.isEmpty()) {
				continue;
			}
			List<Found> all = new ArrayList<>(defaults.isEmpty() ? List.of() : List.of(defaults.get(0)));
			all.addAll(own);
			addProblems(all, "route '" + route.getId() + "'", problems);
		}
		return problems;
	}

	private static void addProblems(List<Found> filters, String applied, List<ConfigurationProblem> problems) {
		if (filters.size() < 2) {
			return;
		}
		Found first = filters.get(0);
		List<String> ids = new ArrayList<>();
		filters.forEach((filter) -> ids.addAll(FilterDefinitions.rateLimitPolicies(filter.definition())));
		for (Found filter : filters.subList(1, filters.size())) {
			problems.add(new ConfigurationProblem(filter.path(),
					RateLimitRouteValidator.display(filter.definition(),
							FilterDefinitions.rateLimitPolicies(filter.definition())),
					"must not be a second " + RateLimitGatewayFilterFactory.NAME + " filter of " + applied + " ("
							+ first.path() + " is "
							+ RateLimitRouteValidator.display(first.definition(),
									FilterDefinitions.rateLimitPolicies(first.definition()))
							+ "): two filters would judge a request one after the other, the second refusing it "
							+ "without giving back what the first took; name every policy in one filter, "
							+ RateLimitGatewayFilterFactory.NAME + "=" + String.join(",", ids)
							+ ", which judges them together"));
		}
	}

	private static List<Found> found(String path, List<FilterDefinition> filters) {
		List<Found> found = new ArrayList<>();
		for (int i = 0; i < filters.size(); i++) {
			if (FilterDefinitions.rateLimitPolicies(filters.get(i)) != null) {
				found.add(new Found(path + "[" + i + "]", filters.get(i)));
			}
		}
		return found;
	}

	private record Found(String path, FilterDefinition definition) {
	}

}
