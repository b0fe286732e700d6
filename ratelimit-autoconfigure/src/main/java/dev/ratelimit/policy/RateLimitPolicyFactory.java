package dev.ratelimit.policy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Penalty;
import dev.ratelimit.policy.PolicySettings.AfterResponseSpec;
import dev.ratelimit.policy.PolicySettings.LimitSpec;
import dev.ratelimit.policy.PolicySettings.PolicySpec;
import dev.ratelimit.support.ConfigName;
import org.jspecify.annotations.Nullable;

/**
 * Turns {@link PolicySettings} into validated, immutable {@link RateLimitPolicies}. Every
 * problem is collected, in the order a reader checks a policy (globals, key, tiers,
 * limits), so that one failed start lists them all; a limit's own rules are
 * {@link LimitFactory}'s.
 */
public final class RateLimitPolicyFactory {

	private static final String PREFIX = "ratelimit";

	/**
	 * A field name: a token (RFC 9110 sections 5.1 and 5.6.2).
	 */
	static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

	private static final Set<Integer> NEEDS_CHALLENGE_OR_ALLOW = Set.of(401, 405, 407);

	private static final String NO_SETTLING = "whose nodes each spend leases in their own memory and so cannot "
			+ "settle a request after its response; use store caffeine or redis";

	private final @Nullable Set<String> keyResolverBeanNames;

	private final boolean oauth2ResourceServerPresent;

	private final boolean responseCostResolverPresent;

	private final TierRule tierRule;

	/**
	 * @param keyResolverBeanNames names of the Spring Cloud Gateway {@code KeyResolver}
	 * beans a policy's {@code key: "#{@beanName}"} may name; {@code null} without the
	 * gateway, where the web routes that use such a policy report it
	 * @param oauth2ResourceServerPresent whether Spring Security's OAuth2 resource server,
	 * which {@code ratelimit.tiers.claim} reads tokens from, is on the classpath
	 * @param responseCostResolverPresent whether the application declares a
	 * {@code ResponseCostResolver} bean, which {@code cost-from-response: resolver} asks
	 * @param tierRule what else a tier must follow for the code that reads it (the
	 * response headers' field rules)
	 */
	public RateLimitPolicyFactory(@Nullable Set<String> keyResolverBeanNames, boolean oauth2ResourceServerPresent,
			boolean responseCostResolverPresent, TierRule tierRule) {
		this.keyResolverBeanNames = (keyResolverBeanNames != null) ? Set.copyOf(keyResolverBeanNames) : null;
		this.oauth2ResourceServerPresent = oauth2ResourceServerPresent;
		this.responseCostResolverPresent = responseCostResolverPresent;
		this.tierRule = tierRule;
	}

	/**
	 * Validate the settings and build the policies.
	 * @throws InvalidRateLimitConfigurationException listing every problem found
	 */
	public RateLimitPolicies create(PolicySettings settings) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		validateGlobals(settings, problems);
		Map<String, RateLimitPolicy> policies = new LinkedHashMap<>();
		settings.policies().forEach((id, policy) -> {
			RateLimitPolicy built = policy(id, policy, settings, problems);
			if (built != null) {
				policies.put(id, built);
			}
		});
		TrustedProxies trustedProxies = trustedProxies(settings, problems);
		TierSource tierSource = tierSource(settings, problems);
		ConfigurationChecks.requireNone(problems);
		return new RateLimitPolicies(policies, settings.tiersByApiKey(), trustedProxies, tierSource);
	}

	/**
	 * Where a request's tier comes from besides its API key: a trusted header or a
	 * token claim, at most one.
	 */
	private @Nullable TierSource tierSource(PolicySettings settings, List<ConfigurationProblem> problems) {
		String header = settings.tierHeader();
		String claim = settings.tierClaim();
		if (header != null && claim != null) {
			problems.add(new ConfigurationProblem(PREFIX + ".tiers.header", ConfigurationProblem.quoted(header),
					"must not be set together with " + PREFIX + ".tiers.claim (" + ConfigurationProblem.quoted(claim)
							+ "): a request's tier comes from one of them"));
			return null;
		}
		if (header != null) {
			if (!HEADER_NAME.matcher(header).matches()) {
				problems.add(new ConfigurationProblem(PREFIX + ".tiers.header", ConfigurationProblem.quoted(header),
						"must be an HTTP header name"));
			}
			return new TierSource.Header(header);
		}
		if (claim != null) {
			if (claim.isBlank()) {
				problems.add(new ConfigurationProblem(PREFIX + ".tiers.claim", ConfigurationProblem.quoted(claim),
						"must name a claim"));
			}
			else if (!this.oauth2ResourceServerPresent) {
				problems.add(new ConfigurationProblem(PREFIX + ".tiers.claim", ConfigurationProblem.quoted(claim),
						"needs Spring Security's OAuth2 resource server (spring-boot-starter-oauth2-resource-server) "
								+ "on the classpath to read the request's token"));
			}
			return new TierSource.Claim(claim);
		}
		return new TierSource.ApiKey();
	}

	private static @Nullable TrustedProxies trustedProxies(PolicySettings settings,
			List<ConfigurationProblem> problems) {
		List<TrustedProxies.Block> blocks = new ArrayList<>();
		List<String> configured = settings.trustedProxies();
		for (int i = 0; i < configured.size(); i++) {
			try {
				blocks.add(TrustedProxies.Block.parse(configured.get(i)));
			}
			catch (IllegalArgumentException ex) {
				problems.add(new ConfigurationProblem(PREFIX + ".trusted-proxies[" + i + "]",
						ConfigurationProblem.quoted(configured.get(i)), ex.getMessage()));
			}
		}
		if (settings.forwardedHeader() == null) {
			problems.add(new ConfigurationProblem(PREFIX + ".forwarded-header", null,
					"must be " + ConfigName.oneOf(ForwardedHeader.values())));
			return null;
		}
		return new TrustedProxies(blocks, settings.forwardedHeader());
	}

	private static void validateGlobals(PolicySettings settings, List<ConfigurationProblem> problems) {
		String header = settings.apiKeyHeader();
		if (header == null || !HEADER_NAME.matcher(header).matches()) {
			problems.add(new ConfigurationProblem(PREFIX + ".api-key-header", ConfigurationProblem.quoted(header),
					"must be an HTTP header name"));
		}
		if (settings.store() == null) {
			problems.add(new ConfigurationProblem(PREFIX + ".store", null,
					"must be " + ConfigName.oneOf(StoreType.values())));
		}
		String defaultTier = settings.defaultTier();
		if (defaultTier == null || defaultTier.isBlank()) {
			problems.add(new ConfigurationProblem(PREFIX + ".tiers.default", ConfigurationProblem.quoted(defaultTier),
					"must name the tier of requests without a known API key"));
		}
		settings.tiersByApiKey().forEach((apiKey, tier) -> {
			if (tier == null || tier.isBlank()) {
				problems.add(new ConfigurationProblem(PREFIX + ".tiers.api-keys[" + masked(apiKey) + "]",
						ConfigurationProblem.quoted(tier), "must name a tier"));
			}
		});
	}

	private @Nullable RateLimitPolicy policy(String id, PolicySpec policy, PolicySettings settings,
			List<ConfigurationProblem> problems) {
		String path = PREFIX + ".policies." + id;
		int problemsBefore = problems.size();
		KeySource key = KeyFactory.key(path + ".key", policy.key(), this.keyResolverBeanNames,
				this.oauth2ResourceServerPresent, problems);
		if (policy.cost() <= 0) {
			problems.add(new ConfigurationProblem(path + ".cost", policy.cost(), ConfigurationChecks.POSITIVE));
		}
		String costHeader = policy.costHeader();
		if (costHeader != null && !HEADER_NAME.matcher(costHeader).matches()) {
			problems.add(new ConfigurationProblem(path + ".cost-header", ConfigurationProblem.quoted(costHeader),
					"must be an HTTP header name"));
		}
		StoreType store = (policy.store() != null) ? policy.store() : settings.store();
		AfterResponse afterResponse = AfterResponseFactory.afterResponse(path, policy.afterResponse(),
				this.responseCostResolverPresent, problems);
		checkAfterResponseStore(path, policy.afterResponse(), store, problems);
		Map<String, Tier> tiers = new LinkedHashMap<>();
		policy.tiers().forEach((tierName, specs) -> {
			String tierPath = path + ".tiers." + tierName;
			Tier tier = tier(tierPath, tierName, specs, policy.cost(), problems);
			if (tier != null) {
				this.tierRule.check(id, tier, tierPath, problems);
				checkHybridStore(tierPath, tier, store, problems);
				checkShapingCounted(tierPath, tier, policy.afterResponse(), problems);
				tiers.put(tierName, tier);
			}
		});
		String defaultTierName = settings.defaultTier();
		if (defaultTierName != null && !defaultTierName.isBlank() && !policy.tiers().containsKey(defaultTierName)) {
			problems.add(new ConfigurationProblem(path + ".tiers", policy.tiers().keySet(),
					"must include the default tier '" + defaultTierName + "' (" + PREFIX + ".tiers.default)"));
		}
		int missingKeyStatus = missingKeyStatus(path, key, policy, problems);
		RequestScope scope = RequestScopeFactory.scope(path, policy.scope(), settings.tiersByApiKey().keySet(),
				policy.tiers().keySet(), problems);
		Penalty penalty = PenaltyFactory.penalty(path, policy.penalty(), store, problems);
		if (problems.size() > problemsBefore) {
			return null;
		}
		return new RateLimitPolicy(id, key, policy.shadow(), policy.cost(), store, tiers, tiers.get(defaultTierName),
				policy.onMissingKey(), missingKeyStatus, costHeader, afterResponse, scope, penalty);
	}

	/**
	 * What the hybrid store's nodes cannot do with leases spent in their own memory:
	 * shaping needs one schedule for every node (the Redis store keeps it in Redis, the
	 * Caffeine store on its one node), and a concurrency limit gives its slot back when
	 * the exchange ends, a settlement after the response that a lease cannot take.
	 */
	private static void checkHybridStore(String tierPath, Tier tier, @Nullable StoreType store,
			List<ConfigurationProblem> problems) {
		if (store != StoreType.HYBRID) {
			return;
		}
		for (int i = 0; i < tier.limits().size(); i++) {
			Limit limit = tier.limits().get(i);
			if (limit.shaping() != null) {
				problems.add(new ConfigurationProblem(tierPath + "[" + i + "].shaping", "store hybrid",
						"must not be set for a policy on store hybrid, whose nodes each admit from leases of "
								+ "their own and so would each release at their own pace; shape on store "
								+ "redis, which keeps one schedule for the fleet"));
			}
			if (limit.countsInFlight()) {
				problems.add(new ConfigurationProblem(tierPath + "[" + i + "].algorithm",
						limit.algorithm().configName(),
						"must not be set for a policy on store hybrid, " + NO_SETTLING));
			}
		}
	}

	/**
	 * A policy that counts responses takes nothing on admission, so a shaping limit of it
	 * would give every request the same release instant rather than a place in its
	 * schedule.
	 */
	private static void checkShapingCounted(String tierPath, Tier tier, AfterResponseSpec spec,
			List<ConfigurationProblem> problems) {
		if (spec.countResponses() == null) {
			return;
		}
		for (int i = 0; i < tier.limits().size(); i++) {
			if (tier.limits().get(i).shaping() != null) {
				problems.add(new ConfigurationProblem(tierPath + "[" + i + "].shaping", "count-responses",
						"must not be set for a policy with count-responses, which takes a request's cost only "
								+ "after its response and so gives it no place in the schedule on admission"));
			}
		}
	}

	/**
	 * {@code count-responses} and {@code cost-from-response} settle after the response,
	 * which the hybrid store cannot.
	 */
	private static void checkAfterResponseStore(String path, AfterResponseSpec spec, @Nullable StoreType store,
			List<ConfigurationProblem> problems) {
		if (store != StoreType.HYBRID) {
			return;
		}
		if (spec.countResponses() != null) {
			problems.add(new ConfigurationProblem(path + ".count-responses", spec.countResponses(),
					"must not be set for a policy on store hybrid, " + NO_SETTLING));
		}
		if (spec.costFromResponse() != null) {
			problems.add(new ConfigurationProblem(path + ".cost-from-response",
					ConfigurationProblem.quoted(spec.costFromResponse()),
					"must not be set for a policy on store hybrid, " + NO_SETTLING));
		}
	}

	/**
	 * The status of a request rejected for having no key, checked against the key it
	 * lacks.
	 */
	private static int missingKeyStatus(String path, @Nullable KeySource key, PolicySpec policy,
			List<ConfigurationProblem> problems) {
		OnMissingKey onMissingKey = policy.onMissingKey();
		Integer status = policy.missingKeyStatus();
		if (onMissingKey == null) {
			problems.add(new ConfigurationProblem(path + ".on-missing-key", null,
					"must be " + ConfigName.oneOf(OnMissingKey.values())));
			return RateLimitPolicy.DEFAULT_MISSING_KEY_STATUS;
		}
		if (onMissingKey == OnMissingKey.REJECT && key != null && !mayLackKey(key)) {
			problems.add(new ConfigurationProblem(path + ".on-missing-key", "reject",
					"must be client-address for key " + key.configValue() + ", which every request has (only "
							+ "principal, header:<Name>, query:<Name>, cookie:<Name>, claim:<Name> and #{@beanName} "
							+ "keys can be missing, and composite keys with such a part or api-key)"));
		}
		if (status == null) {
			return RateLimitPolicy.DEFAULT_MISSING_KEY_STATUS;
		}
		if (onMissingKey != OnMissingKey.REJECT) {
			problems.add(new ConfigurationProblem(path + ".missing-key-status", status,
					"must not be set unless " + path + ".on-missing-key is reject"));
		}
		else if (status < 400 || status > 599 || NEEDS_CHALLENGE_OR_ALLOW.contains(status)) {
			// RFC 9110 sections 15.5.2, 15.5.6 and 15.5.8: a 401 must carry WWW-Authenticate, a
			// 405 Allow and a 407 Proxy-Authenticate, which a rate limiter cannot know.
			problems.add(new ConfigurationProblem(path + ".missing-key-status", status,
					"must be a client or server error status (400 to 599), other than 401, 405 and 407, "
							+ "whose responses must carry headers a rate limiter cannot know"));
		}
		return status;
	}

	/**
	 * Whether a request may lack the key: one keyed by its API key alone falls back to
	 * its client address whatever the policy says, but a composite key's part of it is
	 * missing without a known API key.
	 */
	private static boolean mayLackKey(KeySource key) {
		if (key instanceof KeySource.Composite composite) {
			return composite.parts()
				.stream()
				.anyMatch((part) -> part instanceof KeySource.ApiKey || mayLackKey(part));
		}
		return key instanceof KeySource.Principal || key instanceof KeySource.Header || key instanceof KeySource.Bean
				|| key instanceof KeySource.Query || key instanceof KeySource.Cookie || key instanceof KeySource.Claim;
	}

	private static @Nullable Tier tier(String path, String name, @Nullable List<LimitSpec> specs, long cost,
			List<ConfigurationProblem> problems) {
		if (specs == null || specs.isEmpty()) {
			problems.add(new ConfigurationProblem(path, "[]", "must list at least one limit"));
			return null;
		}
		List<Limit> limits = new ArrayList<>(specs.size());
		List<String> names = new ArrayList<>(specs.size());
		for (int i = 0; i < specs.size(); i++) {
			Limit limit = LimitFactory.limit(path + "[" + i + "]", specs.get(i), cost, problems);
			if (limit != null) {
				limits.add(limit);
				names.add(specs.get(i).name());
			}
		}
		return (limits.size() == specs.size()) ? new Tier(name, limits, names) : null;
	}


	static String masked(String apiKey) {
		return (apiKey.length() <= 4) ? "****" : apiKey.substring(0, 4) + "****";
	}

	/**
	 * A rule a valid tier must follow besides its limits' own, for code outside the policies
	 * that reads the tier (the response headers' field rules, for one).
	 */
	@FunctionalInterface
	public interface TierRule {

		/**
		 * Add what is wrong with {@code tier} of the policy {@code policyId}, configured
		 * at {@code tierPath}, to {@code problems}.
		 */
		void check(String policyId, Tier tier, String tierPath, List<ConfigurationProblem> problems);

	}

}
