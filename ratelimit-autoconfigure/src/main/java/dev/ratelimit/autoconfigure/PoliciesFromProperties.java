package dev.ratelimit.autoconfigure;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import dev.ratelimit.policy.ConfigurationChecks;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.PolicySettings;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicyFactory;
import dev.ratelimit.support.ConfigName;
import dev.ratelimit.web.HeaderStyle;
import dev.ratelimit.web.RateLimitFieldRules;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * The policies of {@link RateLimitProperties}, validated once at start-up and on each
 * reload: the properties handed to {@link RateLimitPolicyFactory} as
 * {@link PolicySettings}, in one report with the problems of the settings checked
 * alongside them that the request path reads ({@code headers}, {@code problem.type}).
 */
final class PoliciesFromProperties {

	private static final String PREFIX = "ratelimit";

	private static final String ABSOLUTE_URI = "must be an absolute URI, such as "
			+ "https://iana.org/assignments/http-problem-types#quota-exceeded or one under a domain you control";

	/**
	 * The class whose presence means Spring Security's OAuth2 resource server, which
	 * {@code ratelimit.tiers.claim} reads tokens from.
	 */
	static final String OAUTH2_TOKEN_CLASS = "org.springframework.security.oauth2.server.resource.authentication."
			+ "AbstractOAuth2TokenAuthenticationToken";

	private final @Nullable Set<String> keyResolverBeanNames;

	private final boolean oauth2ResourceServerPresent;

	private final boolean responseCostResolverPresent;

	/**
	 * @param keyResolverBeanNames names of the Spring Cloud Gateway {@code KeyResolver}
	 * beans a policy's {@code key: "#{@beanName}"} may name
	 * @param responseCostResolverPresent whether the application declares a
	 * {@code ResponseCostResolver} bean, which {@code cost-from-response: resolver} asks
	 */
	PoliciesFromProperties(@Nullable Set<String> keyResolverBeanNames, boolean responseCostResolverPresent) {
		this(keyResolverBeanNames, ClassUtils.isPresent(OAUTH2_TOKEN_CLASS, null), responseCostResolverPresent);
	}

	/**
	 * @param keyResolverBeanNames names of the Spring Cloud Gateway {@code KeyResolver}
	 * beans a policy's {@code key: "#{@beanName}"} may name; {@code null} without the
	 * gateway, where the web routes that use such a policy report it
	 * @param oauth2ResourceServerPresent whether Spring Security's OAuth2 resource server
	 * is on the classpath
	 * @param responseCostResolverPresent whether the application declares a
	 * {@code ResponseCostResolver} bean
	 */
	PoliciesFromProperties(@Nullable Set<String> keyResolverBeanNames, boolean oauth2ResourceServerPresent,
			boolean responseCostResolverPresent) {
		this.keyResolverBeanNames = keyResolverBeanNames;
		this.oauth2ResourceServerPresent = oauth2ResourceServerPresent;
		this.responseCostResolverPresent = responseCostResolverPresent;
	}

	/**
	 * Validate the properties and build the policies.
	 * @throws InvalidRateLimitConfigurationException listing every problem found
	 */
	RateLimitPolicies create(RateLimitProperties properties) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		HeaderStyle headers = properties.getHeaders();
		if (headers == null) {
			problems.add(new ConfigurationProblem(PREFIX + ".headers", null,
					"must be " + ConfigName.oneOf(HeaderStyle.values())));
		}
		problemType(properties.getProblem().getType(), problems);
		RateLimitPolicyFactory factory = new RateLimitPolicyFactory(this.keyResolverBeanNames,
				this.oauth2ResourceServerPresent, this.responseCostResolverPresent,
				(policyId, tier, tierPath, tierProblems) -> {
					if (headers != null) {
						RateLimitFieldRules.check(headers, policyId, tier, tierPath, tierProblems);
					}
				});
		RateLimitPolicies policies = null;
		try {
			policies = factory.create(settings(properties));
		}
		catch (InvalidRateLimitConfigurationException ex) {
			problems.addAll(ex.getProblems());
		}
		ConfigurationChecks.requireNone(problems);
		// Not null: the policies were built unless they had a problem.
		return Objects.requireNonNull(policies);
	}

	private static PolicySettings settings(RateLimitProperties properties) {
		RateLimitProperties.Tiers tiers = properties.getTiers();
		Map<String, PolicySettings.PolicySpec> policies = new LinkedHashMap<>();
		properties.getPolicies().forEach((id, policy) -> policies.put(id, policy(policy)));
		return new PolicySettings(properties.getApiKeyHeader(), properties.getStore(), tiers.getDefaultTier(),
				tiers.getApiKeys(), tiers.getHeader(), tiers.getClaim(), policies, properties.getTrustedProxies(),
				properties.getForwardedHeader());
	}

	private static PolicySettings.PolicySpec policy(RateLimitProperties.Policy policy) {
		Map<String, @Nullable List<PolicySettings.LimitSpec>> tiers = new LinkedHashMap<>();
		policy.getTiers().forEach((name, specs) -> tiers.put(name, (specs != null) ? limits(specs) : null));
		return new PolicySettings.PolicySpec(policy.getKey(), policy.isShadow(), policy.getCost(),
				policy.getCostHeader(), policy.getStore(), tiers, policy.getOnMissingKey(),
				policy.getMissingKeyStatus(), new PolicySettings.AfterResponseSpec(policy.getCountResponses(),
						policy.getCostFromResponse(), policy.isHideResponseCostHeader()),
				scope(policy), penalty(policy.getPenalty()));
	}

	private static PolicySettings.ScopeSpec scope(RateLimitProperties.Policy policy) {
		RateLimitProperties.Exempt exempt = policy.getExempt();
		return new PolicySettings.ScopeSpec(policy.getMethods(), policy.getPaths(), exempt.getAddresses(),
				exempt.getApiKeys(), exempt.getTiers());
	}

	private static PolicySettings.@Nullable PenaltySpec penalty(RateLimitProperties.@Nullable Penalty penalty) {
		return (penalty != null) ? new PolicySettings.PenaltySpec(new ArrayList<>(penalty.getBlockFor()),
				penalty.getForgiveAfter()) : null;
	}

	private static List<PolicySettings.LimitSpec> limits(List<RateLimitProperties.LimitSpec> specs) {
		List<PolicySettings.LimitSpec> limits = new ArrayList<>(specs.size());
		for (RateLimitProperties.LimitSpec spec : specs) {
			limits.add(new PolicySettings.LimitSpec(spec.getName(), spec.getAlgorithm(), spec.getLimit(),
					spec.getWindow(), spec.getCapacity(), spec.getRefillRate(), spec.getRefillPeriod(),
					spec.getDrainRate(), spec.getDrainPeriod(), shaping(spec.getShaping()), spec.getCalendar(),
					spec.getZone()));
		}
		return limits;
	}

	private static PolicySettings.@Nullable ShapingSpec shaping(RateLimitProperties.@Nullable Shaping shaping) {
		return (shaping != null) ? new PolicySettings.ShapingSpec(shaping.getMaxDelay(), shaping.getDelayAfter())
				: null;
	}

	/**
	 * {@code ratelimit.problem.type}, checked on its own too for applications that
	 * define their own policies, whose start-up skips the policies' checks.
	 */
	static URI problemType(RateLimitProperties properties) {
		List<ConfigurationProblem> problems = new ArrayList<>(1);
		URI type = problemType(properties.getProblem().getType(), problems);
		ConfigurationChecks.requireNone(problems);
		// Not null: a type that is not an absolute URI is a problem.
		return Objects.requireNonNull(type);
	}

	/**
	 * The problem type of rejections: an absolute URI, as RFC 9457 section 3.1.1
	 * recommends, so that clients resolve it the same way wherever the body travels.
	 * @return the type, or {@code null} when it is not one (a problem was added)
	 */
	static @Nullable URI problemType(@Nullable String type, List<ConfigurationProblem> problems) {
		String path = PREFIX + ".problem.type";
		if (type == null || type.isBlank()) {
			problems.add(new ConfigurationProblem(path, ConfigurationProblem.quoted(type), ABSOLUTE_URI));
			return null;
		}
		try {
			URI uri = new URI(type);
			if (uri.isAbsolute()) {
				return uri;
			}
		}
		catch (URISyntaxException ex) {
			// Reported below, like a relative reference.
		}
		problems.add(new ConfigurationProblem(path, ConfigurationProblem.quoted(type), ABSOLUTE_URI));
		return null;
	}


}
