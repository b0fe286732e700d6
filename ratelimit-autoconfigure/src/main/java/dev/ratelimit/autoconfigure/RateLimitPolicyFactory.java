package dev.ratelimit.autoconfigure;

import java.math.BigDecimal;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.algorithm.Algorithm;
import dev.ratelimit.algorithm.ConfigName;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.autoconfigure.RateLimitProperties.LimitSpec;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.DurationFormat;
import dev.ratelimit.policy.ForwardedHeader;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.policy.TierSource;
import dev.ratelimit.policy.TrustedProxies;
import dev.ratelimit.web.HeaderStyle;
import dev.ratelimit.web.RateLimitFieldRules;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Turns {@link RateLimitProperties} into validated, immutable
 * {@link RateLimitPolicies}, once at start-up. Every problem is collected so that one
 * failed start lists them all.
 * <p>
 * Longer than our other classes on purpose: every rule a policy's configuration must
 * follow is here, in the order a reader checks a policy (globals, key, tiers, limits),
 * so that one pass finds every problem; the rules other properties share (positive
 * numbers and durations) are {@link ConfigurationChecks}'.
 */
final class RateLimitPolicyFactory {

	private static final String PREFIX = "ratelimit";

	private static final Duration DEFAULT_PERIOD = Duration.ofSeconds(1);

	private static final Pattern BEAN_KEY = Pattern.compile("#\\{@([A-Za-z_$][A-Za-z0-9_$.\\-]*)}");

	private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

	private static final String KEY_SYNTAX = "must be api-key, ip, principal, route, header:<Name> or #{@beanName}";

	private static final String POSITIVE = ConfigurationChecks.POSITIVE;

	private static final Set<Integer> NEEDS_CHALLENGE_OR_ALLOW = Set.of(401, 405, 407);

	private static final String ABSOLUTE_URI = "must be an absolute URI, such as "
			+ "https://iana.org/assignments/http-problem-types#quota-exceeded or one under a domain you control";

	/**
	 * The class whose presence means Spring Security's OAuth2 resource server, which
	 * {@code ratelimit.tiers.claim} reads tokens from.
	 */
	static final String OAUTH2_TOKEN_CLASS = "org.springframework.security.oauth2.server.resource.authentication."
			+ "AbstractOAuth2TokenAuthenticationToken";

	private final Set<String> keyResolverBeanNames;

	private final boolean oauth2ResourceServerPresent;

	/**
	 * @param keyResolverBeanNames names of the Spring Cloud Gateway {@code KeyResolver}
	 * beans a policy's {@code key: "#{@beanName}"} may name
	 */
	RateLimitPolicyFactory(Set<String> keyResolverBeanNames) {
		this(keyResolverBeanNames, ClassUtils.isPresent(OAUTH2_TOKEN_CLASS, null));
	}

	/**
	 * @param keyResolverBeanNames names of the Spring Cloud Gateway {@code KeyResolver}
	 * beans a policy's {@code key: "#{@beanName}"} may name; {@code null} without the
	 * gateway, where the web routes that use such a policy report it
	 * @param oauth2ResourceServerPresent whether Spring Security's OAuth2 resource server
	 * is on the classpath
	 */
	RateLimitPolicyFactory(Set<String> keyResolverBeanNames, boolean oauth2ResourceServerPresent) {
		this.keyResolverBeanNames = (keyResolverBeanNames != null) ? Set.copyOf(keyResolverBeanNames) : null;
		this.oauth2ResourceServerPresent = oauth2ResourceServerPresent;
	}

	/**
	 * Validate the properties and build the policies.
	 * @throws InvalidRateLimitConfigurationException listing every problem found
	 */
	RateLimitPolicies create(RateLimitProperties properties) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		validateGlobals(properties, problems);
		Map<String, RateLimitPolicy> policies = new LinkedHashMap<>();
		properties.getPolicies().forEach((id, policy) -> {
			RateLimitPolicy built = policy(id, policy, properties, problems);
			if (built != null) {
				policies.put(id, built);
			}
		});
		TrustedProxies trustedProxies = trustedProxies(properties, problems);
		TierSource tierSource = tierSource(properties.getTiers(), problems);
		ConfigurationChecks.requireNone(problems);
		return new RateLimitPolicies(policies, properties.getTiers().getApiKeys(), trustedProxies, tierSource);
	}

	/**
	 * Where a request's tier comes from besides its API key: a trusted header or a
	 * token claim, at most one.
	 */
	private @Nullable TierSource tierSource(RateLimitProperties.Tiers tiers, List<ConfigurationProblem> problems) {
		String header = tiers.getHeader();
		String claim = tiers.getClaim();
		if (header != null && claim != null) {
			problems.add(new ConfigurationProblem(PREFIX + ".tiers.header", quoted(header),
					"must not be set together with " + PREFIX + ".tiers.claim (" + quoted(claim)
							+ "): a request's tier comes from one of them"));
			return null;
		}
		if (header != null) {
			if (!HEADER_NAME.matcher(header).matches()) {
				problems.add(new ConfigurationProblem(PREFIX + ".tiers.header", quoted(header),
						"must be an HTTP header name"));
			}
			return new TierSource.Header(header);
		}
		if (claim != null) {
			if (claim.isBlank()) {
				problems.add(new ConfigurationProblem(PREFIX + ".tiers.claim", quoted(claim), "must name a claim"));
			}
			else if (!this.oauth2ResourceServerPresent) {
				problems.add(new ConfigurationProblem(PREFIX + ".tiers.claim", quoted(claim),
						"needs Spring Security's OAuth2 resource server (spring-boot-starter-oauth2-resource-server) "
								+ "on the classpath to read the request's token"));
			}
			return new TierSource.Claim(claim);
		}
		return new TierSource.ApiKey();
	}

	private static @Nullable TrustedProxies trustedProxies(RateLimitProperties properties,
			List<ConfigurationProblem> problems) {
		List<TrustedProxies.Block> blocks = new ArrayList<>();
		List<String> configured = properties.getTrustedProxies();
		for (int i = 0; i < configured.size(); i++) {
			try {
				blocks.add(TrustedProxies.Block.parse(configured.get(i)));
			}
			catch (IllegalArgumentException ex) {
				problems.add(new ConfigurationProblem(PREFIX + ".trusted-proxies[" + i + "]",
						quoted(configured.get(i)), ex.getMessage()));
			}
		}
		if (properties.getForwardedHeader() == null) {
			problems.add(new ConfigurationProblem(PREFIX + ".forwarded-header", null,
					"must be " + ConfigName.oneOf(ForwardedHeader.values())));
			return null;
		}
		return new TrustedProxies(blocks, properties.getForwardedHeader());
	}

	private void validateGlobals(RateLimitProperties properties, List<ConfigurationProblem> problems) {
		String header = properties.getApiKeyHeader();
		if (header == null || !HEADER_NAME.matcher(header).matches()) {
			problems.add(new ConfigurationProblem(PREFIX + ".api-key-header", quoted(header),
					"must be an HTTP header name"));
		}
		if (properties.getHeaders() == null) {
			problems.add(new ConfigurationProblem(PREFIX + ".headers", null,
					"must be " + ConfigName.oneOf(HeaderStyle.values())));
		}
		if (properties.getStore() == null) {
			problems.add(new ConfigurationProblem(PREFIX + ".store", null,
					"must be " + ConfigName.oneOf(StoreType.values())));
		}
		problemType(properties.getProblem().getType(), problems);
		String defaultTier = properties.getTiers().getDefaultTier();
		if (defaultTier == null || defaultTier.isBlank()) {
			problems.add(new ConfigurationProblem(PREFIX + ".tiers.default", quoted(defaultTier),
					"must name the tier of requests without a known API key"));
		}
		properties.getTiers().getApiKeys().forEach((apiKey, tier) -> {
			if (tier == null || tier.isBlank()) {
				problems.add(new ConfigurationProblem(PREFIX + ".tiers.api-keys[" + masked(apiKey) + "]",
						quoted(tier), "must name a tier"));
			}
		});
	}

	private @Nullable RateLimitPolicy policy(String id, RateLimitProperties.Policy policy, RateLimitProperties properties,
			List<ConfigurationProblem> problems) {
		String path = PREFIX + ".policies." + id;
		int problemsBefore = problems.size();
		KeySource key = keySource(path + ".key", policy.getKey(), problems);
		if (policy.getCost() <= 0) {
			problems.add(new ConfigurationProblem(path + ".cost", policy.getCost(), POSITIVE));
		}
		String costHeader = policy.getCostHeader();
		if (costHeader != null && !HEADER_NAME.matcher(costHeader).matches()) {
			problems.add(new ConfigurationProblem(path + ".cost-header", quoted(costHeader),
					"must be an HTTP header name"));
		}
		StoreType store = (policy.getStore() != null) ? policy.getStore() : properties.getStore();
		Map<String, Tier> tiers = new LinkedHashMap<>();
		policy.getTiers().forEach((tierName, specs) -> {
			String tierPath = path + ".tiers." + tierName;
			Tier tier = tier(tierPath, tierName, specs, policy.getCost(), problems);
			if (tier != null && properties.getHeaders() != null) {
				RateLimitFieldRules.check(properties.getHeaders(), id, tier, tierPath, problems);
			}
			if (tier != null) {
				tiers.put(tierName, tier);
			}
		});
		String defaultTierName = properties.getTiers().getDefaultTier();
		if (defaultTierName != null && !defaultTierName.isBlank()
				&& !policy.getTiers().containsKey(defaultTierName)) {
			problems.add(new ConfigurationProblem(path + ".tiers", policy.getTiers().keySet(),
					"must include the default tier '" + defaultTierName + "' (" + PREFIX + ".tiers.default)"));
		}
		int missingKeyStatus = missingKeyStatus(path, key, policy, problems);
		if (problems.size() > problemsBefore) {
			return null;
		}
		return new RateLimitPolicy(id, key, policy.isShadow(), policy.getCost(), store, tiers,
				tiers.get(defaultTierName), policy.getOnMissingKey(), missingKeyStatus, costHeader);
	}

	/**
	 * The status of a request rejected for having no key, checked against the key it
	 * lacks.
	 */
	private static int missingKeyStatus(String path, KeySource key, RateLimitProperties.Policy policy,
			List<ConfigurationProblem> problems) {
		OnMissingKey onMissingKey = policy.getOnMissingKey();
		Integer status = policy.getMissingKeyStatus();
		if (onMissingKey == null) {
			problems.add(new ConfigurationProblem(path + ".on-missing-key", null,
					"must be " + ConfigName.oneOf(OnMissingKey.values())));
			return RateLimitPolicy.DEFAULT_MISSING_KEY_STATUS;
		}
		if (onMissingKey == OnMissingKey.REJECT && key != null && !mayLackKey(key)) {
			problems.add(new ConfigurationProblem(path + ".on-missing-key", "reject",
					"must be client-address for key " + policy.getKey() + ", which every request has (only "
							+ "principal, header:<Name> and #{@beanName} keys can be missing)"));
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

	private static boolean mayLackKey(KeySource key) {
		return key instanceof KeySource.Principal || key instanceof KeySource.Header
				|| key instanceof KeySource.Bean;
	}

	private @Nullable KeySource keySource(String path, @Nullable String key, List<ConfigurationProblem> problems) {
		if (key == null || key.isBlank()) {
			problems.add(new ConfigurationProblem(path, quoted(key), KEY_SYNTAX));
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
			default:
				break;
		}
		if (key.startsWith(KeySource.Header.PREFIX)) {
			String headerName = key.substring(KeySource.Header.PREFIX.length()).trim();
			if (!HEADER_NAME.matcher(headerName).matches()) {
				problems.add(new ConfigurationProblem(path, quoted(key),
						"must name an HTTP header after 'header:', for example header:X-Tenant"));
				return null;
			}
			return new KeySource.Header(headerName);
		}
		Matcher bean = BEAN_KEY.matcher(key);
		if (bean.matches()) {
			String beanName = bean.group(1);
			if (this.keyResolverBeanNames != null && !this.keyResolverBeanNames.contains(beanName)) {
				problems.add(new ConfigurationProblem(path, quoted(key),
						"must name a KeyResolver bean (KeyResolver beans: "
								+ (this.keyResolverBeanNames.isEmpty() ? "none" : this.keyResolverBeanNames)
								+ ")"));
				return null;
			}
			return new KeySource.Bean(beanName);
		}
		problems.add(new ConfigurationProblem(path, quoted(key), KEY_SYNTAX));
		return null;
	}

	private @Nullable Tier tier(String path, String name, @Nullable List<LimitSpec> specs, long cost,
			List<ConfigurationProblem> problems) {
		if (specs == null || specs.isEmpty()) {
			problems.add(new ConfigurationProblem(path, "[]", "must list at least one limit"));
			return null;
		}
		List<Limit> limits = new ArrayList<>(specs.size());
		List<String> names = new ArrayList<>(specs.size());
		for (int i = 0; i < specs.size(); i++) {
			Limit limit = limit(path + "[" + i + "]", specs.get(i), cost, problems);
			if (limit != null) {
				limits.add(limit);
				names.add(specs.get(i).getName());
			}
		}
		return (limits.size() == specs.size()) ? new Tier(name, limits, names) : null;
	}

	/**
	 * The problem type of rejections: an absolute URI, as RFC 9457 section 3.1.1
	 * recommends, so that clients resolve it the same way wherever the body travels.
	 * @return the type, or {@code null} when it is not one (a problem was added)
	 */
	static @Nullable URI problemType(@Nullable String type, List<ConfigurationProblem> problems) {
		String path = PREFIX + ".problem.type";
		if (type == null || type.isBlank()) {
			problems.add(new ConfigurationProblem(path, quoted(type), ABSOLUTE_URI));
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
		problems.add(new ConfigurationProblem(path, quoted(type), ABSOLUTE_URI));
		return null;
	}

	private @Nullable Limit limit(String path, LimitSpec spec, long cost, List<ConfigurationProblem> problems) {
		if (spec.getAlgorithm() == null || spec.getAlgorithm().isBlank()) {
			problems.add(new ConfigurationProblem(path + ".algorithm", quoted(spec.getAlgorithm()),
					"must be one of " + algorithmNames()));
			return null;
		}
		Algorithm algorithm = algorithm(spec.getAlgorithm());
		if (algorithm == null) {
			problems.add(new ConfigurationProblem(path + ".algorithm", spec.getAlgorithm(),
					"must be one of " + algorithmNames()));
			return null;
		}
		LimitFields fields = LimitFields.of(algorithm);
		int problemsBefore = problems.size();
		Map<String, Object> values = values(spec);
		for (String required : fields.required()) {
			if (values.get(required) == null) {
				problems.add(new ConfigurationProblem(path + "." + required, null,
						"must be set for " + algorithm.configName() + ", which takes " + fields.describe()));
			}
		}
		values.forEach((field, value) -> {
			if (value != null && !fields.accepts(field)) {
				problems.add(new ConfigurationProblem(path + "." + field, display(value),
						"must not be set for " + algorithm.configName() + ", which takes " + fields.describe()));
			}
		});
		values.forEach((field, value) -> {
			if (value != null && fields.accepts(field)) {
				checkPositive(path + "." + field, value, problems);
			}
		});
		if (problems.size() > problemsBefore) {
			return null;
		}
		long quota = (fields == LimitFields.WINDOW) ? spec.getLimit() : spec.getCapacity();
		if (cost > quota) {
			String policyPath = path.substring(0, path.indexOf(".tiers."));
			problems.add(new ConfigurationProblem(policyPath + ".cost", cost,
					"must not exceed the quota of " + path + " (" + quota + "), or no request could ever pass"));
			return null;
		}
		try {
			return build(algorithm, spec);
		}
		catch (IllegalArgumentException ex) {
			problems.add(new ConfigurationProblem(path, algorithm.configName(), ex.getMessage()));
			return null;
		}
	}

	private static Limit build(Algorithm algorithm, LimitSpec spec) {
		switch (algorithm) {
			case FIXED_WINDOW:
				return new FixedWindow(spec.getLimit(), spec.getWindow());
			case SLIDING_WINDOW_LOG:
				return new SlidingWindowLog(spec.getLimit(), spec.getWindow());
			case SLIDING_WINDOW_COUNTER:
				return new SlidingWindowCounter(spec.getLimit(), spec.getWindow());
			case TOKEN_BUCKET:
				return new TokenBucket(spec.getCapacity(), spec.getRefillRate(),
						orDefault(spec.getRefillPeriod()));
			case LEAKY_BUCKET:
				return new LeakyBucket(spec.getCapacity(), spec.getDrainRate(), orDefault(spec.getDrainPeriod()));
			default:
				throw new IllegalStateException("unhandled algorithm " + algorithm);
		}
	}

	private static Duration orDefault(Duration period) {
		return (period != null) ? period : DEFAULT_PERIOD;
	}

	private static void checkPositive(String path, Object value, List<ConfigurationProblem> problems) {
		if (value instanceof Long number) {
			ConfigurationChecks.positive(path, number, problems);
		}
		else if (value instanceof Double number && !(number > 0 && Double.isFinite(number))) {
			problems.add(new ConfigurationProblem(path, display(number), POSITIVE));
		}
		else if (value instanceof Duration duration) {
			ConfigurationChecks.positive(path, duration, problems);
		}
	}

	private static Map<String, Object> values(LimitSpec spec) {
		Map<String, Object> values = new LinkedHashMap<>();
		values.put("limit", spec.getLimit());
		values.put("window", spec.getWindow());
		values.put("capacity", spec.getCapacity());
		values.put("refill-rate", spec.getRefillRate());
		values.put("refill-period", spec.getRefillPeriod());
		values.put("drain-rate", spec.getDrainRate());
		values.put("drain-period", spec.getDrainPeriod());
		return values;
	}

	private static @Nullable Algorithm algorithm(String name) {
		for (Algorithm algorithm : Algorithm.values()) {
			if (algorithm.configName().equals(name.trim())) {
				return algorithm;
			}
		}
		return null;
	}

	private static List<String> algorithmNames() {
		List<String> names = new ArrayList<>();
		for (Algorithm algorithm : Algorithm.values()) {
			names.add(algorithm.configName());
		}
		return names;
	}

	private static String display(Object value) {
		if (value instanceof Double number) {
			if (number.isNaN() || number.isInfinite()) {
				return number.toString();
			}
			return BigDecimal.valueOf(number).stripTrailingZeros().toPlainString();
		}
		if (value instanceof Duration duration) {
			return DurationFormat.asConfigured(duration);
		}
		return String.valueOf(value);
	}

	private static @Nullable String quoted(@Nullable String value) {
		return (value != null) ? "'" + value + "'" : null;
	}

	private static String masked(String apiKey) {
		return (apiKey.length() <= 4) ? "****" : apiKey.substring(0, 4) + "****";
	}

	/**
	 * The parameters each family of algorithms takes.
	 */
	private enum LimitFields {

		WINDOW(List.of("limit", "window"), List.of()),

		TOKEN_BUCKET(List.of("capacity", "refill-rate"), List.of("refill-period")),

		LEAKY_BUCKET(List.of("capacity", "drain-rate"), List.of("drain-period"));

		private final List<String> required;

		private final List<String> optional;

		LimitFields(List<String> required, List<String> optional) {
			this.required = required;
			this.optional = optional;
		}

		static LimitFields of(Algorithm algorithm) {
			switch (algorithm) {
				case TOKEN_BUCKET:
					return TOKEN_BUCKET;
				case LEAKY_BUCKET:
					return LEAKY_BUCKET;
				default:
					return WINDOW;
			}
		}

		List<String> required() {
			return this.required;
		}

		boolean accepts(String field) {
			return this.required.contains(field) || this.optional.contains(field);
		}

		String describe() {
			String required = String.join(" and ", this.required);
			return this.optional.isEmpty() ? required
					: String.join(", ", this.required) + " and optionally " + String.join(", ", this.optional);
		}

	}

}
