package dev.ratelimit.web;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.Tier;

/**
 * What a tier must be for the rate limit fields of a {@link HeaderStyle} to describe it
 * validly: the fields are never sent malformed, since clients must ignore malformed
 * fields (draft-ietf-httpapi-ratelimit-headers-11 section 7; RFC 9651 section 4.2).
 * Checked once at start-up.
 */
public final class RateLimitFieldRules {

	/**
	 * The largest Structured Fields Integer: fifteen digits (RFC 9651 section 3.3.1).
	 */
	static final long MAX_INTEGER = 999_999_999_999_999L;

	private RateLimitFieldRules() {
	}

	/**
	 * Add a problem for each way the fields of {@code style} could not describe
	 * {@code tier}.
	 * @param policyId the id of the policy the tier belongs to
	 * @param tierPath the tier's property path, {@code ratelimit.policies.<id>.tiers.<tier>}
	 */
	public static void check(HeaderStyle style, String policyId, Tier tier, String tierPath,
			List<ConfigurationProblem> problems) {
		Map<String, Integer> names = new HashMap<>();
		Map<Long, Integer> quotas = new HashMap<>();
		for (int i = 0; i < tier.limits().size(); i++) {
			String limitPath = tierPath + "[" + i + "]";
			String configured = tier.limitNames().get(i);
			String name = tier.limitName(policyId, i);
			if (configured != null && (configured.isBlank() || !isString(configured))) {
				problems.add(new ConfigurationProblem(limitPath + ".name", "'" + configured + "'",
						"must be non-blank printable ASCII: it is sent as a Structured Fields String (RFC 9651 "
								+ "section 3.3.3) in draft-11 headers and as a violated policy in 429 bodies"));
			}
			else if (configured == null && style == HeaderStyle.DRAFT_11 && !isString(name)) {
				problems.add(new ConfigurationProblem(limitPath + ".name", null,
						"must be set with ratelimit.headers=draft-11: the default name '" + name
								+ "' (<policy>-<tier>-<n>) is not printable ASCII, which a Structured Fields String "
								+ "(RFC 9651 section 3.3.3) must be; name the limit, or rename the policy or tier"));
			}
			Integer sameName = names.putIfAbsent(name, i);
			if (sameName != null) {
				problems.add(new ConfigurationProblem(limitPath + ".name", "'" + name + "'",
						"must be unique within the tier, but " + tierPath + "[" + sameName
								+ "] has that name too; headers and 429 bodies tell limits apart by name"));
			}
			Limit limit = tier.limits().get(i);
			if (style == HeaderStyle.DRAFT_06 || style == HeaderStyle.DRAFT_11) {
				if (limit.quota() > MAX_INTEGER) {
					problems.add(new ConfigurationProblem(limitPath + "." + quotaProperty(limit), limit.quota(),
							"must be at most " + MAX_INTEGER + " with ratelimit.headers=" + style.configName()
									+ ", which sends it as a Structured Fields Integer (RFC 9651 section 3.3.1)"));
				}
			}
			// A limit of requests in flight is no draft-06 quota policy (it has no window).
			Integer sameQuota = limit.countsInFlight() ? null : quotas.putIfAbsent(limit.quota(), i);
			if (style == HeaderStyle.DRAFT_06 && sameQuota != null) {
				problems.add(new ConfigurationProblem(limitPath + "." + quotaProperty(limit), limit.quota(),
						"must differ from the quota of " + tierPath + "[" + sameQuota
								+ "] with ratelimit.headers=draft-06: its RateLimit-Policy cannot list two policies "
								+ "with the same quota, since RateLimit-Limit tells which one it reports by its "
								+ "quota (draft-ietf-httpapi-ratelimit-headers-06 sections 3.1 and 3.2); change one "
								+ "quota, or use ratelimit.headers=draft-11, whose fields name each limit"));
			}
		}
	}

	/**
	 * Whether {@code value} can be sent as a Structured Fields String: printable ASCII
	 * only (RFC 9651 section 3.3.3).
	 */
	static boolean isString(String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c < 0x20 || c > 0x7E) {
				return false;
			}
		}
		return true;
	}

	/**
	 * {@code value} serialized as a Structured Fields String (RFC 9651 section 4.1.6):
	 * quoted, with {@code "} and {@code \} escaped.
	 * @throws IllegalArgumentException when it is not printable ASCII
	 */
	static String string(String value) {
		if (!isString(value)) {
			throw new IllegalArgumentException(
					"'" + value + "' is not printable ASCII, so it cannot be a Structured Fields String");
		}
		StringBuilder serialized = new StringBuilder(value.length() + 2).append('"');
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == '"' || c == '\\') {
				serialized.append('\\');
			}
			serialized.append(c);
		}
		return serialized.append('"').toString();
	}

	private static String quotaProperty(Limit limit) {
		return (limit instanceof TokenBucket || limit instanceof LeakyBucket) ? "capacity" : "limit";
	}

}
