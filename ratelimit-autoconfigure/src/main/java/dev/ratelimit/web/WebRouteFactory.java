package dev.ratelimit.web;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.NamedPolicies;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.web.RateLimitWebFilter.Route;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpMethod;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * Turns {@code ratelimit.web.routes} into validated routes, once at start-up, their
 * path patterns parsed. Every problem is collected so that one failed start lists them
 * all.
 */
public final class WebRouteFactory {

	private static final String PREFIX = "ratelimit.web.routes";

	/**
	 * A method is a token (RFC 9110 section 9.1).
	 */
	private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

	private static final Set<String> STANDARD_METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT",
			"OPTIONS", "TRACE", "PATCH");

	private final RateLimitPolicies policies;

	private final boolean gatewayPresent;

	private final HeaderStyle headerStyle;

	/**
	 * @param policies the validated policies the routes name
	 * @param gatewayPresent whether Spring Cloud Gateway is on the classpath, which a
	 * policy keyed by a {@code KeyResolver} bean needs
	 * @param headerStyle the rate limit headers responses carry, which the policies one
	 * route names must be able to describe together
	 */
	public WebRouteFactory(RateLimitPolicies policies, boolean gatewayPresent, HeaderStyle headerStyle) {
		this.policies = policies;
		this.gatewayPresent = gatewayPresent;
		this.headerStyle = headerStyle;
	}

	/**
	 * Validate the routes and build them.
	 * @throws InvalidRateLimitConfigurationException listing every problem found
	 */
	public List<Route> create(List<Configured> configured) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		List<Route> routes = new ArrayList<>(configured.size());
		Set<String> ids = new HashSet<>();
		for (int i = 0; i < configured.size(); i++) {
			String path = PREFIX + "[" + i + "]";
			Configured route = configured.get(i);
			int problemsBefore = problems.size();
			List<PathPattern> patterns = patterns(path, route.paths(), problems);
			Set<HttpMethod> methods = methods(path, route.methods(), problems);
			List<RateLimitPolicy> policies = policies(path, route, problems);
			String id = (route.id() != null) ? route.id() : String.join(",", route.paths());
			if (id.isBlank()) {
				problems.add(new ConfigurationProblem(path + ".id", "'" + id + "'", "must not be blank"));
			}
			else if (!ids.add(id)) {
				problems.add(new ConfigurationProblem(path + ".id", "'" + id + "'",
						"must be unique among the web routes (set an id, or list other paths)"));
			}
			if (problems.size() == problemsBefore) {
				routes.add(new Route(id, patterns, methods, policies));
			}
		}
		if (!problems.isEmpty()) {
			throw new InvalidRateLimitConfigurationException(problems);
		}
		return routes;
	}

	/**
	 * What would be wrong with the routes in force, validated at start-up, under
	 * reloaded policies: a route whose policies are no longer defined (removed or
	 * renamed), no longer work without the gateway, or can no longer be judged together.
	 * @param routes the routes in force, in the order of {@code ratelimit.web.routes}
	 */
	public List<ConfigurationProblem> reloadProblems(List<Route> routes) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		for (int i = 0; i < routes.size(); i++) {
			Route route = routes.get(i);
			List<ConfigurationProblem> routeProblems = new ArrayList<>();
			List<String> ids = route.policies().stream().map(RateLimitPolicy::id).toList();
			policies(PREFIX + "[" + i + "]", ids, (ids.size() == 1) ? ".policy" : ".policies", routeProblems);
			for (ConfigurationProblem problem : routeProblems) {
				problems.add(new ConfigurationProblem(
						problem.property() + " (web route '" + route.id() + "', read once at start-up)",
						problem.value(), problem.rule()));
			}
		}
		return problems;
	}

	private static List<PathPattern> patterns(String path, List<String> paths, List<ConfigurationProblem> problems) {
		if (paths.isEmpty()) {
			problems.add(new ConfigurationProblem(path + ".paths", "[]",
					"must list at least one path pattern, such as /api/**"));
		}
		List<PathPattern> patterns = new ArrayList<>(paths.size());
		for (int j = 0; j < paths.size(); j++) {
			String pattern = paths.get(j);
			if (pattern == null || !pattern.startsWith("/")) {
				problems.add(new ConfigurationProblem(path + ".paths[" + j + "]", ConfigurationProblem.quoted(pattern),
						"must be a path pattern starting with /, such as /api/orders/**"));
				continue;
			}
			try {
				patterns.add(PathPatternParser.defaultInstance.parse(pattern));
			}
			catch (PatternParseException ex) {
				problems.add(new ConfigurationProblem(path + ".paths[" + j + "]", ConfigurationProblem.quoted(pattern),
						"must be a valid path pattern: " + ex.getMessage() + " at character " + ex.getPosition()));
			}
		}
		return patterns;
	}

	/**
	 * Methods are case-sensitive (RFC 9110 section 9.1): {@code get} would never match a
	 * {@code GET} request, so a standard method in another case is refused rather than
	 * left to never match.
	 */
	private static Set<HttpMethod> methods(String path, List<String> names, List<ConfigurationProblem> problems) {
		Set<HttpMethod> methods = new LinkedHashSet<>();
		for (int k = 0; k < names.size(); k++) {
			String name = names.get(k);
			String property = path + ".methods[" + k + "]";
			if (name == null || !TOKEN.matcher(name).matches()) {
				problems.add(new ConfigurationProblem(property, ConfigurationProblem.quoted(name),
						"must be an HTTP method, such as GET"));
			}
			else if (!STANDARD_METHODS.contains(name) && STANDARD_METHODS.contains(name.toUpperCase(Locale.ROOT))) {
				problems.add(new ConfigurationProblem(property, ConfigurationProblem.quoted(name), "must be written "
						+ name.toUpperCase(Locale.ROOT) + ": methods are case-sensitive (RFC 9110 section 9.1)"));
			}
			else {
				methods.add(HttpMethod.valueOf(name));
			}
		}
		return methods;
	}

	/**
	 * The route's policies, named by {@code policy} (one id, or several separated by
	 * commas) or {@code policies}, not both.
	 */
	private @Nullable List<RateLimitPolicy> policies(String path, Configured route,
			List<ConfigurationProblem> problems) {
		if (route.policy() != null && !route.policies().isEmpty()) {
			problems.add(new ConfigurationProblem(path + ".policies", route.policies(),
					"must not be set together with " + path + ".policy ('" + route.policy()
							+ "'): name the route's policies in one of them"));
			return null;
		}
		if (!route.policies().isEmpty()) {
			return policies(path, NamedPolicies.ids(route.policies()), ".policies", problems);
		}
		return policies(path, (route.policy() != null) ? NamedPolicies.ids(List.of(route.policy())) : List.of(),
				".policy", problems);
	}

	private @Nullable List<RateLimitPolicy> policies(String path, List<String> ids, String property,
			List<ConfigurationProblem> problems) {
		String where = path + property;
		Object value = (ids.size() == 1) ? ConfigurationProblem.quoted(ids.get(0)) : ids;
		List<ConfigurationProblem> named = NamedPolicies.problems(where, ids.isEmpty() ? null : value, ids,
				this.policies.byId().keySet());
		if (!named.isEmpty()) {
			problems.addAll(named);
			return null;
		}
		List<RateLimitPolicy> policies = new ArrayList<>(ids.size());
		for (String id : ids) {
			RateLimitPolicy policy = this.policies.policy(id);
			if (policy.key().usesKeyResolverBean() && !this.gatewayPresent) {
				problems.add(new ConfigurationProblem(where, value,
						"must name a policy whose key works without Spring Cloud Gateway: ratelimit.policies." + id
								+ ".key is " + policy.key().configValue()
								+ ", which names a gateway KeyResolver bean, and the gateway is not on the classpath; "
								+ "key the policy by anything else, such as principal, header:<Name>, api-key or ip"));
			}
			policies.add(policy);
		}
		problems.addAll(PolicyCombination.problems(this.headerStyle, policies, where, value));
		return policies;
	}

	/**
	 * One route of {@code ratelimit.web.routes} as configured, before validation.
	 *
	 * @param id the route's id, or {@code null} for its paths joined
	 * @param paths the path patterns
	 * @param methods the methods, or empty for any
	 * @param policy the id of the policy it enforces (or several, separated by commas),
	 * or {@code null}
	 * @param policies the ids of the policies it enforces together, or empty
	 */
	public record Configured(@Nullable String id, List<String> paths, List<String> methods, @Nullable String policy,
			List<String> policies) {

		public Configured {
			policies = List.copyOf(policies);
		}

		/**
		 * A route naming one policy.
		 */
		public Configured(@Nullable String id, List<String> paths, List<String> methods, @Nullable String policy) {
			this(id, paths, methods, policy, List.of());
		}

	}

}
