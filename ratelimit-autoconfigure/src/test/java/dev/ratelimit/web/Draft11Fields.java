package dev.ratelimit.web;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.web.StructuredFieldParser.Member;

import org.springframework.http.HttpHeaders;

/**
 * The draft-11 fields of a response, parsed with {@link StructuredFieldParser} and
 * checked against draft-ietf-httpapi-ratelimit-headers-11: {@code RateLimit-Policy} a
 * non-empty List of Strings with an Integer {@code q} and a positive Integer {@code w}
 * (section 3), {@code RateLimit} a List of Strings with non-negative Integers {@code r}
 * and {@code t} (section 4), each naming a policy. Any other shape fails.
 *
 * @param policies the quota policies, in field order
 * @param serviceLimits the service limits, in field order
 */
public record Draft11Fields(List<Policy> policies, List<ServiceLimit> serviceLimits) {

	/**
	 * Parse and check both fields of {@code headers}.
	 * @throws AssertionError when either is missing or does not follow the draft
	 */
	public static Draft11Fields of(HttpHeaders headers) {
		try {
			Map<String, Policy> policies = new LinkedHashMap<>();
			List<Member> policyMembers = StructuredFieldParser.parseList(headers.get("RateLimit-Policy"));
			require(!policyMembers.isEmpty(), "RateLimit-Policy is a non-empty List");
			for (Member member : policyMembers) {
				String name = name(member);
				require(member.parameters().keySet().equals(Set.of("q", "w")),
						"a quota policy has exactly q and w: " + member);
				Policy policy = new Policy(name, nonNegative(member, "q"), positive(member, "w"));
				require(policies.put(name, policy) == null, "policy names are unique: " + name);
			}
			List<ServiceLimit> limits = new ArrayList<>();
			for (Member member : StructuredFieldParser.parseList(headers.get("RateLimit"))) {
				String name = name(member);
				require(policies.containsKey(name), "a service limit names a policy of RateLimit-Policy: " + name);
				require(member.parameters().keySet().equals(Set.of("r", "t")),
						"a service limit has exactly r and t: " + member);
				limits.add(new ServiceLimit(name, nonNegative(member, "r"), nonNegative(member, "t")));
			}
			require(limits.stream().map(ServiceLimit::name).distinct().count() == limits.size(),
					"service limits are unique: " + limits);
			return new Draft11Fields(List.copyOf(policies.values()), List.copyOf(limits));
		}
		catch (IllegalArgumentException ex) {
			throw new AssertionError("Not valid draft-11 fields: " + headers, ex);
		}
	}

	/**
	 * The service limit of the policy named {@code name}.
	 */
	public ServiceLimit serviceLimit(String name) {
		return this.serviceLimits.stream()
			.filter((limit) -> limit.name().equals(name))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no service limit named " + name + " in " + this.serviceLimits));
	}

	private static String name(Member member) {
		require(member.value() instanceof String, "an item is a String: " + member);
		return (String) member.value();
	}

	private static long nonNegative(Member member, String key) {
		Object value = member.parameters().get(key);
		require(value instanceof Long number && number >= 0, key + " is a non-negative Integer: " + member);
		return (Long) value;
	}

	private static long positive(Member member, String key) {
		long value = nonNegative(member, key);
		require(value > 0, key + " is a non-zero Integer: " + member);
		return value;
	}

	private static void require(boolean condition, String rule) {
		if (!condition) {
			throw new IllegalArgumentException(rule);
		}
	}

	/**
	 * A quota policy item (draft-11 section 3.1).
	 */
	public record Policy(String name, long quota, long windowSeconds) {
	}

	/**
	 * A service limit item (draft-11 section 4.1).
	 */
	public record ServiceLimit(String name, long remaining, long resetSeconds) {
	}

}
