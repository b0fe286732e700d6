package dev.ratelimit.policy;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import dev.ratelimit.policy.PolicySettings.ScopeSpec;
import dev.ratelimit.support.EditDistance;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpMethod;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * Turns a policy's {@code methods}, {@code paths} and {@code exempt} into its
 * {@link RequestScope}, checking each entry: a method HTTP defines, a path pattern that
 * parses, an address block, an API key that is configured, a tier the policy has.
 */
final class RequestScopeFactory {

	/**
	 * The methods of RFC 9110 section 9.3 and PATCH (RFC 5789): those a policy may name.
	 * Methods are case-sensitive (RFC 9110 section 9.1), so {@code post} is none of them.
	 */
	private static final List<String> METHODS = List.of("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT",
			"OPTIONS", "TRACE", "PATCH");

	private static final String A_METHOD = "must be an HTTP method: GET, HEAD, POST, PUT, DELETE, CONNECT, OPTIONS, "
			+ "TRACE (RFC 9110 section 9.3) or PATCH (RFC 5789)";

	private RequestScopeFactory() {
	}

	/**
	 * @param path the policy's property path
	 * @param apiKeys the configured API keys, {@code ratelimit.tiers.api-keys}
	 * @param tiers the names of the policy's tiers
	 * @return the policy's scope, or {@code null} when a problem was added
	 */
	static @Nullable RequestScope scope(String path, ScopeSpec spec, Set<String> apiKeys, Set<String> tiers,
			List<ConfigurationProblem> problems) {
		int problemsBefore = problems.size();
		Set<HttpMethod> methods = methods(path + ".methods", spec.methods(), problems);
		List<PathPattern> paths = paths(path + ".paths", spec.paths(), problems);
		List<TrustedProxies.Block> addresses = addresses(path + ".exempt.addresses", spec.exemptAddresses(),
				problems);
		Set<String> exemptApiKeys = apiKeys(path + ".exempt.api-keys", spec.exemptApiKeys(), apiKeys, problems);
		Set<String> exemptTiers = tiers(path + ".exempt.tiers", spec.exemptTiers(), tiers, problems);
		if (problems.size() > problemsBefore) {
			return null;
		}
		return new RequestScope(methods, paths, addresses, exemptApiKeys, exemptTiers);
	}

	private static Set<HttpMethod> methods(String path, @Nullable List<String> names,
			List<ConfigurationProblem> problems) {
		Set<HttpMethod> methods = new LinkedHashSet<>();
		if (names == null) {
			return methods;
		}
		if (names.isEmpty()) {
			problems.add(new ConfigurationProblem(path, "[]",
					"must list at least one method, such as [POST]; without methods the policy applies to every "
							+ "method"));
		}
		for (int i = 0; i < names.size(); i++) {
			String name = names.get(i);
			if (name != null && METHODS.contains(name)) {
				methods.add(HttpMethod.valueOf(name));
				continue;
			}
			String rule = A_METHOD;
			if (name != null && METHODS.contains(name.toUpperCase(Locale.ROOT))) {
				rule = "must be written " + name.toUpperCase(Locale.ROOT)
						+ ": methods are case-sensitive (RFC 9110 section 9.1)";
			}
			else if (name != null && EditDistance.nearest(name, METHODS) != null) {
				rule += "; did you mean " + EditDistance.nearest(name, METHODS) + "?";
			}
			problems.add(new ConfigurationProblem(path + "[" + i + "]", ConfigurationProblem.quoted(name), rule));
		}
		return methods;
	}

	private static List<PathPattern> paths(String path, @Nullable List<String> patterns,
			List<ConfigurationProblem> problems) {
		List<PathPattern> paths = new ArrayList<>();
		if (patterns == null) {
			return paths;
		}
		if (patterns.isEmpty()) {
			problems.add(new ConfigurationProblem(path, "[]",
					"must list at least one path pattern, such as [/api/**]; without paths the policy applies to "
							+ "every path"));
		}
		for (int i = 0; i < patterns.size(); i++) {
			String pattern = patterns.get(i);
			String entry = path + "[" + i + "]";
			if (pattern == null || !pattern.startsWith("/")) {
				problems.add(new ConfigurationProblem(entry, ConfigurationProblem.quoted(pattern),
						"must be a path pattern starting with /, such as /api/orders/**"));
				continue;
			}
			try {
				paths.add(PathPatternParser.defaultInstance.parse(pattern));
			}
			catch (PatternParseException ex) {
				problems.add(new ConfigurationProblem(entry, ConfigurationProblem.quoted(pattern),
						"must be a valid path pattern: " + ex.getMessage() + " at character " + ex.getPosition()));
			}
		}
		return paths;
	}

	private static List<TrustedProxies.Block> addresses(String path, List<String> configured,
			List<ConfigurationProblem> problems) {
		List<TrustedProxies.Block> blocks = new ArrayList<>();
		for (int i = 0; i < configured.size(); i++) {
			String address = configured.get(i);
			String entry = path + "[" + i + "]";
			// Refused before parsing: the parser's own reason is about trusting proxies.
			if (address != null && address.strip().endsWith("/0")) {
				problems.add(new ConfigurationProblem(entry, ConfigurationProblem.quoted(address),
						"must not be a /0 block, which would exempt every client"));
				continue;
			}
			try {
				blocks.add(TrustedProxies.Block.parse(address));
			}
			catch (IllegalArgumentException ex) {
				problems.add(new ConfigurationProblem(entry, ConfigurationProblem.quoted(address), ex.getMessage()));
			}
		}
		return blocks;
	}

	/**
	 * API keys are secrets: a problem shows one masked, and never lists the configured
	 * ones.
	 */
	private static Set<String> apiKeys(String path, List<String> exempt, Set<String> configured,
			List<ConfigurationProblem> problems) {
		Set<String> apiKeys = new LinkedHashSet<>();
		for (int i = 0; i < exempt.size(); i++) {
			String apiKey = exempt.get(i);
			if (apiKey != null && configured.contains(apiKey)) {
				apiKeys.add(apiKey);
				continue;
			}
			problems.add(new ConfigurationProblem(path + "[" + i + "]",
					(apiKey != null) ? ConfigurationProblem.quoted(RateLimitPolicyFactory.masked(apiKey)) : null,
					"must be an API key configured under ratelimit.tiers.api-keys (" + configured.size()
							+ " configured)"));
		}
		return apiKeys;
	}

	private static Set<String> tiers(String path, List<String> exempt, Set<String> tiers,
			List<ConfigurationProblem> problems) {
		Set<String> exemptTiers = new LinkedHashSet<>();
		for (int i = 0; i < exempt.size(); i++) {
			String tier = exempt.get(i);
			if (tier != null && tiers.contains(tier)) {
				exemptTiers.add(tier);
				continue;
			}
			String nearest = (tier != null) ? EditDistance.nearest(tier, tiers) : null;
			problems.add(new ConfigurationProblem(path + "[" + i + "]", ConfigurationProblem.quoted(tier),
					"must be a tier of this policy (tiers: " + tiers + ")"
							+ ((nearest != null) ? "; did you mean " + nearest + "?" : "")));
		}
		return exemptTiers;
	}

}
