package dev.ratelimit.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.support.EditDistance;
import org.jspecify.annotations.Nullable;

/**
 * Turns a policy's {@code key} into its {@link KeySource}: one key, or the parts of a
 * composite key, each of which is any key but a composite one. Every part must be one
 * of the known forms, name what it reads, and appear once.
 */
final class KeyFactory {

	private static final Pattern BEAN_KEY = Pattern.compile("#\\{@([A-Za-z_$][A-Za-z0-9_$.\\-]*)}");

	private static final String KEY_SYNTAX = "must be api-key, ip, principal, route, method, path, header:<Name>, "
			+ "query:<Name>, cookie:<Name>, claim:<Name> or #{@beanName}";

	/**
	 * The keys written as one word, for the suggestion made for a misspelt one.
	 */
	private static final List<String> WORDS = List.of(KeySource.ApiKey.VALUE, KeySource.ClientIp.VALUE,
			KeySource.Principal.VALUE, KeySource.Route.VALUE, KeySource.Method.VALUE, KeySource.Path.VALUE);

	/**
	 * The keys written as a prefix and a name, for the suggestion made for a misspelt
	 * prefix.
	 */
	private static final List<String> PREFIXES = List.of(KeySource.Header.PREFIX, KeySource.Query.PREFIX,
			KeySource.Cookie.PREFIX, KeySource.Claim.PREFIX);

	/**
	 * A cookie's name: a token (RFC 6265 section 4.1.1).
	 */
	private static final Pattern COOKIE_NAME = RateLimitPolicyFactory.HEADER_NAME;

	private KeyFactory() {
	}

	/**
	 * @param path the property path of the policy's {@code key}
	 * @param key the key as configured: one entry for one key, several for a composite
	 * key
	 * @param keyResolverBeanNames the {@code KeyResolver} beans a {@code #{@beanName}}
	 * key may name; {@code null} without the gateway, where the web routes that use such
	 * a policy report it
	 * @param oauth2ResourceServerPresent whether Spring Security's OAuth2 resource server,
	 * which {@code claim:<Name>} reads tokens from, is on the classpath
	 * @return the key, or {@code null} when a problem was added
	 */
	static @Nullable KeySource key(String path, @Nullable List<String> key, @Nullable Set<String> keyResolverBeanNames,
			boolean oauth2ResourceServerPresent, List<ConfigurationProblem> problems) {
		if (key == null || key.isEmpty()) {
			problems.add(new ConfigurationProblem(path, (key != null) ? "[]" : null,
					KEY_SYNTAX + ", or list several of them, such as [ip, header:X-Tenant]"));
			return null;
		}
		if (key.size() == 1) {
			return part(path, key.get(0), keyResolverBeanNames, oauth2ResourceServerPresent, problems);
		}
		List<KeySource> parts = new ArrayList<>(key.size());
		boolean valid = true;
		for (int i = 0; i < key.size(); i++) {
			String partPath = path + "[" + i + "]";
			KeySource part = part(partPath, key.get(i), keyResolverBeanNames, oauth2ResourceServerPresent, problems);
			if (part == null) {
				valid = false;
				continue;
			}
			int first = indexOfSame(parts, part);
			if (first >= 0) {
				problems.add(new ConfigurationProblem(partPath, ConfigurationProblem.quoted(key.get(i)),
						"must not repeat " + path + "[" + first + "]: each part of a composite key is read once"));
				valid = false;
			}
			parts.add(part);
		}
		return valid ? new KeySource.Composite(parts) : null;
	}

	/**
	 * The first of {@code parts} that reads what {@code part} reads, or -1: header names
	 * are case-insensitive (RFC 9110 section 5.1), so {@code header:x-tenant} is
	 * {@code header:X-Tenant} again.
	 */
	private static int indexOfSame(List<KeySource> parts, KeySource part) {
		for (int i = 0; i < parts.size(); i++) {
			KeySource other = parts.get(i);
			boolean same = (other instanceof KeySource.Header a && part instanceof KeySource.Header b)
					? a.headerName().equalsIgnoreCase(b.headerName()) : other.equals(part);
			if (same) {
				return i;
			}
		}
		return -1;
	}

	private static @Nullable KeySource part(String path, @Nullable String key,
			@Nullable Set<String> keyResolverBeanNames, boolean oauth2ResourceServerPresent,
			List<ConfigurationProblem> problems) {
		if (key == null || key.isBlank()) {
			problems.add(new ConfigurationProblem(path, ConfigurationProblem.quoted(key), KEY_SYNTAX));
			return null;
		}
		switch (key) {
			case KeySource.ApiKey.VALUE:
				return new KeySource.ApiKey();
			case KeySource.ClientIp.VALUE:
				return new KeySource.ClientIp();
			case KeySource.Principal.VALUE:
				return new KeySource.Principal();
			case KeySource.Route.VALUE:
				return new KeySource.Route();
			case KeySource.Method.VALUE:
				return new KeySource.Method();
			case KeySource.Path.VALUE:
				return new KeySource.Path();
			default:
				break;
		}
		if (key.startsWith(KeySource.Header.PREFIX)) {
			String headerName = key.substring(KeySource.Header.PREFIX.length()).trim();
			if (!RateLimitPolicyFactory.HEADER_NAME.matcher(headerName).matches()) {
				problems.add(new ConfigurationProblem(path, ConfigurationProblem.quoted(key),
						"must name an HTTP header after 'header:', for example header:X-Tenant"));
				return null;
			}
			return new KeySource.Header(headerName);
		}
		if (key.startsWith(KeySource.Query.PREFIX)) {
			String name = named(path, key, KeySource.Query.PREFIX, "a query parameter", "page", problems);
			return (name != null) ? new KeySource.Query(name) : null;
		}
		if (key.startsWith(KeySource.Cookie.PREFIX)) {
			String name = named(path, key, KeySource.Cookie.PREFIX, "a cookie", "session", problems);
			if (name != null && !COOKIE_NAME.matcher(name).matches()) {
				problems.add(new ConfigurationProblem(path, ConfigurationProblem.quoted(key),
						"must name a cookie after 'cookie:', a token without spaces or separators (RFC 6265 "
								+ "section 4.1.1), for example cookie:session"));
				return null;
			}
			return (name != null) ? new KeySource.Cookie(name) : null;
		}
		if (key.startsWith(KeySource.Claim.PREFIX)) {
			return claim(path, key, oauth2ResourceServerPresent, problems);
		}
		Matcher bean = BEAN_KEY.matcher(key);
		if (bean.matches()) {
			String beanName = bean.group(1);
			if (keyResolverBeanNames != null && !keyResolverBeanNames.contains(beanName)) {
				problems.add(new ConfigurationProblem(path, ConfigurationProblem.quoted(key),
						"must name a KeyResolver bean (KeyResolver beans: "
								+ (keyResolverBeanNames.isEmpty() ? "none" : keyResolverBeanNames) + ")"));
				return null;
			}
			return new KeySource.Bean(beanName);
		}
		problems.add(new ConfigurationProblem(path, ConfigurationProblem.quoted(key), KEY_SYNTAX + suggestion(key)));
		return null;
	}

	private static @Nullable KeySource claim(String path, String key, boolean oauth2ResourceServerPresent,
			List<ConfigurationProblem> problems) {
		String name = named(path, key, KeySource.Claim.PREFIX, "a claim of the request's token", "sub", problems);
		if (name == null) {
			return null;
		}
		if (!oauth2ResourceServerPresent) {
			problems.add(new ConfigurationProblem(path, ConfigurationProblem.quoted(key),
					"needs Spring Security's OAuth2 resource server (spring-boot-starter-oauth2-resource-server) "
							+ "on the classpath to read the request's token"));
			return null;
		}
		return new KeySource.Claim(name);
	}

	/**
	 * The name after a key's prefix, or {@code null} when there is none (a problem was
	 * added).
	 */
	private static @Nullable String named(String path, String key, String prefix, String what, String example,
			List<ConfigurationProblem> problems) {
		String name = key.substring(prefix.length()).trim();
		if (name.isEmpty()) {
			problems.add(new ConfigurationProblem(path, ConfigurationProblem.quoted(key),
					"must name " + what + " after '" + prefix + "', for example " + prefix + example));
			return null;
		}
		return name;
	}

	/**
	 * The known key a misspelt one was likely meant to be: a word ({@code principle}),
	 * or a prefix and the name after it ({@code heder:X-Tenant}).
	 */
	private static String suggestion(String key) {
		int colon = key.indexOf(':');
		String nearest = (colon >= 0)
				? suggestedPrefix(key.substring(0, colon + 1), key.substring(colon + 1))
				: EditDistance.nearest(key, WORDS);
		return (nearest != null) ? "; did you mean " + nearest + "?" : "";
	}

	private static @Nullable String suggestedPrefix(String prefix, String name) {
		String nearest = EditDistance.nearest(prefix, PREFIXES);
		return (nearest != null) ? nearest + name : null;
	}

}
