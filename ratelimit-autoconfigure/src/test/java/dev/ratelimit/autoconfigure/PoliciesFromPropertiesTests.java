package dev.ratelimit.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.ForwardedHeader;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.RequestScope;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.policy.TrustedProxies;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.http.HttpMethod;
import org.springframework.web.util.pattern.PathPattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class PoliciesFromPropertiesTests {

	private final PoliciesFromProperties factory = new PoliciesFromProperties(Set.of("tenantKeyResolver"), false);

	@Test
	void buildsTheIssueExampleWithEveryAlgorithm() {
		RateLimitPolicies policies = this.factory.create(bind(Map.ofEntries(
				Map.entry("ratelimit.tiers.api-keys.demo-free-key", "free"),
				Map.entry("ratelimit.tiers.api-keys.demo-pro-key", "pro"),
				Map.entry("ratelimit.policies.orders.tiers.anonymous[0].algorithm", "fixed-window"),
				Map.entry("ratelimit.policies.orders.tiers.anonymous[0].limit", "60"),
				Map.entry("ratelimit.policies.orders.tiers.anonymous[0].window", "1m"),
				Map.entry("ratelimit.policies.orders.tiers.free[0].algorithm", "token-bucket"),
				Map.entry("ratelimit.policies.orders.tiers.free[0].capacity", "10"),
				Map.entry("ratelimit.policies.orders.tiers.free[0].refill-rate", "2"),
				Map.entry("ratelimit.policies.orders.tiers.free[1].algorithm", "fixed-window"),
				Map.entry("ratelimit.policies.orders.tiers.free[1].limit", "10000"),
				Map.entry("ratelimit.policies.orders.tiers.free[1].window", "1d"),
				Map.entry("ratelimit.policies.orders.tiers.pro[0].algorithm", "sliding-window-counter"),
				Map.entry("ratelimit.policies.orders.tiers.pro[0].limit", "100"),
				Map.entry("ratelimit.policies.orders.tiers.pro[0].window", "1m"),
				Map.entry("ratelimit.policies.search.key", "ip"),
				Map.entry("ratelimit.policies.search.shadow", "true"),
				Map.entry("ratelimit.policies.search.store", "redis"),
				Map.entry("ratelimit.policies.search.tiers.anonymous[0].algorithm", "sliding-window-log"),
				Map.entry("ratelimit.policies.search.tiers.anonymous[0].limit", "5"),
				Map.entry("ratelimit.policies.search.tiers.anonymous[0].window", "500ms"),
				Map.entry("ratelimit.policies.search.tiers.anonymous[1].algorithm", "leaky-bucket"),
				Map.entry("ratelimit.policies.search.tiers.anonymous[1].capacity", "3"),
				Map.entry("ratelimit.policies.search.tiers.anonymous[1].drain-rate", "0.5"),
				Map.entry("ratelimit.policies.search.tiers.anonymous[1].drain-period", "1m"))));
		RateLimitPolicy orders = policies.policy("orders");
		assertThat(orders.key()).isEqualTo(new KeySource.ApiKey());
		assertThat(orders.shadow()).isFalse();
		assertThat(orders.cost()).isEqualTo(1);
		assertThat(orders.store()).isEqualTo(StoreType.CAFFEINE);
		assertThat(orders.defaultTier().name()).isEqualTo("anonymous");
		assertThat(orders.tiers().get("free").limits()).containsExactly(
				new TokenBucket(10, 2, Duration.ofSeconds(1)), new FixedWindow(10000, Duration.ofDays(1)));
		assertThat(orders.tiers().get("pro").limits())
			.containsExactly(new SlidingWindowCounter(100, Duration.ofMinutes(1)));
		assertThat(orders.tiers()).containsOnlyKeys("anonymous", "free", "pro");
		assertThat(orders.tiers().get("anonymous")).isSameAs(orders.defaultTier());
		RateLimitPolicy search = policies.policy("search");
		assertThat(search.key()).isEqualTo(new KeySource.ClientIp());
		assertThat(search.shadow()).isTrue();
		assertThat(search.store()).isEqualTo(StoreType.REDIS);
		assertThat(search.defaultTier().limits()).containsExactly(
				new SlidingWindowLog(5, Duration.ofMillis(500)), new LeakyBucket(3, 0.5, Duration.ofMinutes(1)));
		assertThat(policies.tiersByApiKey()).containsEntry("demo-free-key", "free").containsEntry("demo-pro-key", "pro");
	}

	@Test
	void parsesEveryKeySyntax() {
		assertThat(keyOf("api-key")).isEqualTo(new KeySource.ApiKey());
		assertThat(keyOf("ip")).isEqualTo(new KeySource.ClientIp());
		assertThat(keyOf("principal")).isEqualTo(new KeySource.Principal());
		assertThat(keyOf("route")).isEqualTo(new KeySource.Route());
		assertThat(keyOf("header:X-Tenant")).isEqualTo(new KeySource.Header("X-Tenant"));
		assertThat(keyOf("#{@tenantKeyResolver}")).isEqualTo(new KeySource.Bean("tenantKeyResolver"));
	}

	@Test
	void rejectsBadKeySyntax() {
		assertProblems(withKey("user"), "ratelimit.policies.p.key: was 'user', must be api-key, ip, principal, "
				+ "route, method, path, header:<Name>, query:<Name>, cookie:<Name>, claim:<Name> or #{@beanName}");
		assertProblems(withKey("header:"), "ratelimit.policies.p.key: was 'header:', must name an HTTP header "
				+ "after 'header:', for example header:X-Tenant");
		assertProblems(withKey("header:X Tenant"), "ratelimit.policies.p.key: was 'header:X Tenant', must name "
				+ "an HTTP header after 'header:', for example header:X-Tenant");
	}

	@Test
	void rejectsUnknownKeyResolverBean() {
		assertProblems(withKey("#{@missing}"), "ratelimit.policies.p.key: was '#{@missing}', must name a "
				+ "KeyResolver bean (KeyResolver beans: [tenantKeyResolver])");
	}

	@Test
	void rejectsNonPositiveNumbersAndDurations() {
		assertProblems(limit("fixed-window", "limit", "0", "window", "1m"),
				"ratelimit.policies.p.tiers.anonymous[0].limit: was 0, must be a positive number");
		assertProblems(limit("sliding-window-log", "limit", "-3", "window", "1m"),
				"ratelimit.policies.p.tiers.anonymous[0].limit: was -3, must be a positive number");
		assertProblems(limit("sliding-window-counter", "limit", "10", "window", "0s"),
				"ratelimit.policies.p.tiers.anonymous[0].window: was 0s, must be a positive duration "
						+ "(for example 500ms, 1s, 1m, 1d)");
		assertProblems(limit("fixed-window", "limit", "10", "window", "-5s"),
				"ratelimit.policies.p.tiers.anonymous[0].window: was -5s, must be a positive duration "
						+ "(for example 500ms, 1s, 1m, 1d)");
		assertProblems(limit("token-bucket", "capacity", "0", "refill-rate", "1"),
				"ratelimit.policies.p.tiers.anonymous[0].capacity: was 0, must be a positive number");
		assertProblems(limit("token-bucket", "capacity", "10", "refill-rate", "0"),
				"ratelimit.policies.p.tiers.anonymous[0].refill-rate: was 0, must be a positive number");
		assertProblems(limit("token-bucket", "capacity", "10", "refill-rate", "1", "refill-period", "0ms"),
				"ratelimit.policies.p.tiers.anonymous[0].refill-period: was 0s, must be a positive duration "
						+ "(for example 500ms, 1s, 1m, 1d)");
		assertProblems(limit("leaky-bucket", "capacity", "5", "drain-rate", "-0.5"),
				"ratelimit.policies.p.tiers.anonymous[0].drain-rate: was -0.5, must be a positive number");
	}

	@Test
	void rejectsUnknownAlgorithm() {
		assertProblems(limit("token-buckett", "capacity", "10", "refill-rate", "1"),
				"ratelimit.policies.p.tiers.anonymous[0].algorithm: was token-buckett, must be one of "
						+ "[fixed-window, sliding-window-log, sliding-window-counter, token-bucket, leaky-bucket, concurrency]");
	}

	@Test
	void rejectsMissingAlgorithm() {
		assertProblems(limit(null, "limit", "10", "window", "1s"),
				"ratelimit.policies.p.tiers.anonymous[0].algorithm: was not set, must be one of "
						+ "[fixed-window, sliding-window-log, sliding-window-counter, token-bucket, leaky-bucket, concurrency]");
	}

	@Test
	void rejectsMissingFieldForTheAlgorithm() {
		assertProblems(limit("fixed-window", "limit", "10"),
				"ratelimit.policies.p.tiers.anonymous[0].window: was not set, must be set for fixed-window, "
						+ "which takes limit and window");
		assertProblems(limit("token-bucket", "capacity", "10"),
				"ratelimit.policies.p.tiers.anonymous[0].refill-rate: was not set, must be set for token-bucket, "
						+ "which takes capacity, refill-rate and optionally refill-period");
		assertProblems(limit("leaky-bucket", "drain-rate", "1"),
				"ratelimit.policies.p.tiers.anonymous[0].capacity: was not set, must be set for leaky-bucket, "
						+ "which takes capacity, drain-rate and optionally drain-period");
	}

	@Test
	void rejectsFieldThatDoesNotBelongToTheAlgorithm() {
		assertProblems(limit("fixed-window", "limit", "10", "window", "1s", "capacity", "5"),
				"ratelimit.policies.p.tiers.anonymous[0].capacity: was 5, must not be set for fixed-window, "
						+ "which takes limit and window");
		assertProblems(limit("token-bucket", "capacity", "10", "refill-rate", "1", "drain-period", "2s"),
				"ratelimit.policies.p.tiers.anonymous[0].drain-period: was 2s, must not be set for token-bucket, "
						+ "which takes capacity, refill-rate and optionally refill-period");
	}

	@Test
	void rejectsPolicyWithoutTheDefaultTier() {
		assertProblems(Map.of("ratelimit.policies.p.tiers.pro[0].algorithm", "fixed-window",
				"ratelimit.policies.p.tiers.pro[0].limit", "1", "ratelimit.policies.p.tiers.pro[0].window", "1s"),
				"ratelimit.policies.p.tiers: was [pro], must include the default tier 'anonymous' "
						+ "(ratelimit.tiers.default)");
	}

	@Test
	void honoursARenamedDefaultTier() {
		RateLimitPolicies policies = this.factory.create(bind(Map.of("ratelimit.tiers.default", "guest",
				"ratelimit.policies.p.tiers.guest[0].algorithm", "fixed-window",
				"ratelimit.policies.p.tiers.guest[0].limit", "1", "ratelimit.policies.p.tiers.guest[0].window",
				"1s")));
		assertThat(policies.policy("p").defaultTier().name()).isEqualTo("guest");
	}

	@Test
	void rejectsCostAboveAQuota() {
		Map<String, String> properties = new HashMap<>(
				limit("token-bucket", "capacity", "3", "refill-rate", "1"));
		properties.put("ratelimit.policies.p.cost", "5");
		assertProblems(properties, "ratelimit.policies.p.cost: was 5, must not exceed the quota of "
				+ "ratelimit.policies.p.tiers.anonymous[0] (3), or no request could ever pass");
	}

	@Test
	void rejectsNonPositiveCost() {
		Map<String, String> properties = new HashMap<>(limit("fixed-window", "limit", "3", "window", "1s"));
		properties.put("ratelimit.policies.p.cost", "0");
		assertProblems(properties, "ratelimit.policies.p.cost: was 0, must be a positive number");
	}

	@Test
	void rejectsEmptyTier() {
		Map<String, String> properties = new HashMap<>(limit("fixed-window", "limit", "3", "window", "1s"));
		properties.put("ratelimit.policies.p.tiers.pro", "");
		assertProblems(properties, "ratelimit.policies.p.tiers.pro: was [], must list at least one limit");
	}

	@Test
	void collectsEveryProblemIntoOneException() {
		Map<String, String> properties = Map.of("ratelimit.policies.orders.tiers.anonymous[0].algorithm",
				"token-bucket", "ratelimit.policies.orders.tiers.anonymous[0].capacity", "10",
				"ratelimit.policies.orders.tiers.anonymous[0].refill-rate", "0",
				"ratelimit.policies.orders.tiers.free[0].algorithm", "nope", "ratelimit.policies.search.key", "who",
				"ratelimit.policies.search.tiers.anonymous[0].algorithm", "fixed-window",
				"ratelimit.policies.search.tiers.anonymous[0].window", "1s");
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> this.factory.create(bind(properties)))
			.satisfies((ex) -> assertThat(ex.getProblems()).extracting(ConfigurationProblem::describe)
				.containsExactlyInAnyOrder(
						"ratelimit.policies.orders.tiers.anonymous[0].refill-rate: was 0, must be a positive number",
						"ratelimit.policies.orders.tiers.free[0].algorithm: was nope, must be one of "
								+ "[fixed-window, sliding-window-log, sliding-window-counter, token-bucket, leaky-bucket, concurrency]",
						"ratelimit.policies.search.key: was 'who', must be api-key, ip, principal, route, "
								+ "method, path, header:<Name>, query:<Name>, cookie:<Name>, claim:<Name> or "
								+ "#{@beanName}",
						"ratelimit.policies.search.tiers.anonymous[0].limit: was not set, must be set for "
								+ "fixed-window, which takes limit and window"))
			.withMessageContaining("Invalid rate limit configuration:")
			.withMessageContaining(" - ratelimit.policies.orders.tiers.anonymous[0].refill-rate: was 0, "
					+ "must be a positive number");
	}

	@Test
	void rejectsBlankApiKeyHeaderWithoutLeakingKeys() {
		Map<String, String> properties = new HashMap<>(limit("fixed-window", "limit", "3", "window", "1s"));
		properties.put("ratelimit.api-key-header", "X Key");
		properties.put("ratelimit.tiers.api-keys.secret-key-123", " ");
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> this.factory.create(bind(properties)))
			.satisfies((ex) -> assertThat(ex.getProblems()).extracting(ConfigurationProblem::describe)
				.containsExactly("ratelimit.api-key-header: was 'X Key', must be an HTTP header name",
						"ratelimit.tiers.api-keys[secr****]: was ' ', must name a tier"));
	}

	@Test
	void aLimitIsNamedAsConfiguredElseByPolicyTierAndPosition() {
		Map<String, String> properties = new HashMap<>(limit("fixed-window", "limit", "10", "window", "1s",
				"name", "per-second"));
		properties.putAll(limit(1, "fixed-window", "limit", "1000", "window", "1d"));
		Tier tier = this.factory.create(bind(properties)).policy("p").defaultTier();
		assertThat(tier.limitName("p", 0)).isEqualTo("per-second");
		assertThat(tier.limitName("p", 1)).isEqualTo("p-anonymous-2");
	}

	@Test
	void rejectsNamesThatAreNotPrintableAscii() {
		assertProblems(limit("fixed-window", "limit", "10", "window", "1s", "name", "gr\u00f6\u00dfe"),
				"ratelimit.policies.p.tiers.anonymous[0].name: was 'gr\u00f6\u00dfe', must be non-blank printable "
						+ "ASCII: it is sent as a Structured Fields String (RFC 9651 section 3.3.3) in draft-11 "
						+ "headers and as a violated policy in 429 bodies");
		assertProblems(limit("fixed-window", "limit", "10", "window", "1s", "name", " "),
				"ratelimit.policies.p.tiers.anonymous[0].name: was ' ', must be non-blank printable ASCII: it is "
						+ "sent as a Structured Fields String (RFC 9651 section 3.3.3) in draft-11 headers and as a "
						+ "violated policy in 429 bodies");
	}

	@Test
	void rejectsTwoLimitsOfATierWithOneName() {
		Map<String, String> properties = new HashMap<>(limit("fixed-window", "limit", "10", "window", "1s",
				"name", "p-anonymous-2"));
		properties.putAll(limit(1, "fixed-window", "limit", "1000", "window", "1d"));
		assertProblems(properties, "ratelimit.policies.p.tiers.anonymous[1].name: was 'p-anonymous-2', must be "
				+ "unique within the tier, but ratelimit.policies.p.tiers.anonymous[0] has that name too; headers "
				+ "and 429 bodies tell limits apart by name");
	}

	@Test
	void draft11NeedsNamesForATierNamedOutsideAscii() {
		Map<String, String> properties = Map.of("ratelimit.headers", "draft-11", "ratelimit.tiers.default",
				"g\u00f6", "ratelimit.policies.p.tiers[g\u00f6][0].algorithm", "fixed-window",
				"ratelimit.policies.p.tiers[g\u00f6][0].limit", "10", "ratelimit.policies.p.tiers[g\u00f6][0].window",
				"1s");
		assertProblems(properties, "ratelimit.policies.p.tiers.g\u00f6[0].name: was not set, must be set with "
				+ "ratelimit.headers=draft-11: the default name 'p-g\u00f6-1' (<policy>-<tier>-<n>) is not printable "
				+ "ASCII, which a Structured Fields String (RFC 9651 section 3.3.3) must be; name the limit, or "
				+ "rename the policy or tier");
		Map<String, String> named = new HashMap<>(properties);
		named.put("ratelimit.policies.p.tiers[g\u00f6][0].name", "ten-per-second");
		assertThat(this.factory.create(bind(named)).policy("p").defaultTier().limitName("p", 0))
			.isEqualTo("ten-per-second");
		Map<String, String> draft06 = new HashMap<>(properties);
		draft06.put("ratelimit.headers", "draft-06");
		assertThat(this.factory.create(bind(draft06)).policy("p").defaultTier().limitName("p", 0))
			.isEqualTo("p-g\u00f6-1");
	}

	@Test
	void draft06RejectsTwoLimitsOfATierWithOneQuota() {
		Map<String, String> properties = new HashMap<>(limit("fixed-window", "limit", "10", "window", "1s"));
		properties.putAll(limit(1, "token-bucket", "capacity", "10", "refill-rate", "1", "refill-period", "6s"));
		assertProblems(properties, "ratelimit.policies.p.tiers.anonymous[1].capacity: was 10, must differ from "
				+ "the quota of ratelimit.policies.p.tiers.anonymous[0] with ratelimit.headers=draft-06: its "
				+ "RateLimit-Policy cannot list two policies with the same quota, since RateLimit-Limit tells which "
				+ "one it reports by its quota (draft-ietf-httpapi-ratelimit-headers-06 sections 3.1 and 3.2); "
				+ "change one quota, or use ratelimit.headers=draft-11, whose fields name each limit");
		properties.put("ratelimit.headers", "draft-11");
		assertThat(this.factory.create(bind(properties)).policy("p").defaultTier().limits()).hasSize(2);
	}

	@Test
	void structuredFieldStylesRejectAQuotaAnIntegerCannotCarry() {
		Map<String, String> properties = new HashMap<>(
				limit("fixed-window", "limit", "1000000000000000", "window", "1d"));
		assertProblems(properties, "ratelimit.policies.p.tiers.anonymous[0].limit: was 1000000000000000, must be "
				+ "at most 999999999999999 with ratelimit.headers=draft-06, which sends it as a Structured Fields "
				+ "Integer (RFC 9651 section 3.3.1)");
		properties.put("ratelimit.headers", "x-ratelimit");
		assertThat(this.factory.create(bind(properties)).policy("p").defaultTier().limits()).hasSize(1);
	}

	@Test
	void problemTypeDefaultsToQuotaExceeded() {
		RateLimitProperties properties = bind(limit("fixed-window", "limit", "3", "window", "1s"));
		List<ConfigurationProblem> problems = new ArrayList<>();
		assertThat(PoliciesFromProperties.problemType(properties.getProblem().getType(), problems))
			.isEqualTo(URI.create("https://iana.org/assignments/http-problem-types#quota-exceeded"));
		assertThat(problems).isEmpty();
	}

	@Test
	void rejectsAProblemTypeThatIsNotAnAbsoluteUri() {
		for (String type : new String[] { "/problems/rate-limited", "https://example.com/a b", " " }) {
			Map<String, String> properties = new HashMap<>(limit("fixed-window", "limit", "3", "window", "1s"));
			properties.put("ratelimit.problem.type", type);
			assertProblems(properties, "ratelimit.problem.type: was '" + type + "', must be an absolute URI, such "
					+ "as https://iana.org/assignments/http-problem-types#quota-exceeded or one under a domain you "
					+ "control");
		}
		Map<String, String> properties = new HashMap<>(limit("fixed-window", "limit", "3", "window", "1s"));
		properties.put("ratelimit.problem.type", "https://api.example.com/problems/rate-limited");
		assertThat(this.factory.create(bind(properties)).byId()).containsKey("p");
	}

	@Test
	void trustsNoProxyByDefault() {
		RateLimitPolicies policies = this.factory.create(bind(withKey("ip")));
		assertThat(policies.trustedProxies().isEmpty()).isTrue();
	}

	@Test
	void parsesTrustedProxiesAndTheirHeader() {
		Map<String, String> properties = new HashMap<>(withKey("ip"));
		properties.put("ratelimit.trusted-proxies[0]", "10.0.0.0/8");
		properties.put("ratelimit.trusted-proxies[1]", " 2001:db8::/32 ");
		properties.put("ratelimit.trusted-proxies[2]", "192.0.2.7");
		properties.put("ratelimit.forwarded-header", "forwarded");
		TrustedProxies proxies = this.factory.create(bind(properties)).trustedProxies();
		assertThat(proxies.blocks()).extracting(Object::toString)
			.containsExactly("10.0.0.0/8", "2001:db8:0:0:0:0:0:0/32", "192.0.2.7/32");
		assertThat(proxies.header()).isEqualTo(ForwardedHeader.FORWARDED);
	}

	@Test
	void rejectsEveryInvalidTrustedProxyNamingItsIndex() {
		Map<String, String> properties = new HashMap<>(withKey("ip"));
		properties.put("ratelimit.trusted-proxies[0]", "10.0.0.0/8");
		properties.put("ratelimit.trusted-proxies[1]", "proxy.internal");
		properties.put("ratelimit.trusted-proxies[2]", "10.0.0.1/8");
		properties.put("ratelimit.trusted-proxies[3]", "0.0.0.0/0");
		assertProblems(properties,
				"ratelimit.trusted-proxies[1]: was 'proxy.internal', must be an IP address or a CIDR block, such as "
						+ "10.0.0.0/8 or 2001:db8::/32",
				"ratelimit.trusted-proxies[2]: was '10.0.0.1/8', must have no address bits set after the prefix "
						+ "(did you mean 10.0.0.0/8?)",
				"ratelimit.trusted-proxies[3]: was '0.0.0.0/0', must not be a /0 block, which would trust every "
						+ "client's forwarding header");
	}

	@Test
	void requestsWithoutAKeyFallBackToTheClientAddressByDefault() {
		RateLimitPolicy policy = this.factory.create(bind(withKey("principal"))).policy("p");
		assertThat(policy.onMissingKey()).isEqualTo(OnMissingKey.CLIENT_ADDRESS);
	}

	@Test
	void requestsWithoutAKeyAreRejectedWith403UnlessAnotherStatusIsChosen() {
		Map<String, String> properties = new HashMap<>(withKey("header:X-Tenant"));
		properties.put("ratelimit.policies.p.on-missing-key", "reject");
		RateLimitPolicy policy = this.factory.create(bind(properties)).policy("p");
		assertThat(policy.onMissingKey()).isEqualTo(OnMissingKey.REJECT);
		assertThat(policy.missingKeyStatus()).isEqualTo(403);
		properties.put("ratelimit.policies.p.missing-key-status", "400");
		assertThat(this.factory.create(bind(properties)).policy("p").missingKeyStatus()).isEqualTo(400);
	}

	@Test
	void rejectsAMissingKeyStatusThatIsNoErrorOrNeedsHeadersTheLimiterCannotKnow() {
		for (String status : new String[] { "200", "302", "399", "401", "405", "407", "600" }) {
			Map<String, String> properties = new HashMap<>(withKey("principal"));
			properties.put("ratelimit.policies.p.on-missing-key", "reject");
			properties.put("ratelimit.policies.p.missing-key-status", status);
			assertProblems(properties, "ratelimit.policies.p.missing-key-status: was " + status + ", must be a client "
					+ "or server error status (400 to 599), other than 401, 405 and 407, whose responses must carry "
					+ "headers a rate limiter cannot know");
		}
	}

	@Test
	void rejectsAMissingKeyStatusWithoutRejecting() {
		Map<String, String> properties = new HashMap<>(withKey("principal"));
		properties.put("ratelimit.policies.p.missing-key-status", "400");
		assertProblems(properties, "ratelimit.policies.p.missing-key-status: was 400, must not be set unless "
				+ "ratelimit.policies.p.on-missing-key is reject");
	}

	@Test
	void rejectsRejectingMissingKeysOfKeysEveryRequestHas() {
		for (String key : new String[] { "api-key", "ip", "route", "method", "path", "ip,route,method,path" }) {
			Map<String, String> properties = new HashMap<>(withKey(key));
			properties.put("ratelimit.policies.p.on-missing-key", "reject");
			assertProblems(properties, "ratelimit.policies.p.on-missing-key: was reject, must be client-address for "
					+ "key " + (key.contains(",") ? "[ip, route, method, path]" : key) + ", which every request has "
					+ "(only principal, header:<Name>, query:<Name>, cookie:<Name>, claim:<Name> and #{@beanName} "
					+ "keys can be missing, and composite keys with such a part or api-key)");
		}
	}

	@Test
	void aScalarKeyBindsAsOneKeyAndAListOrACommaSeparatedValueAsACompositeKey() {
		KeySource composite = new KeySource.Composite(
				List.of(new KeySource.ClientIp(), new KeySource.Header("X-Tenant")));
		assertThat(keyOf("header:X-Tenant")).isEqualTo(new KeySource.Header("X-Tenant"));
		assertThat(keyOf("ip, header:X-Tenant")).isEqualTo(composite);
		Map<String, String> indexed = new HashMap<>(limit("fixed-window", "limit", "3", "window", "1s"));
		indexed.put("ratelimit.policies.p.key[0]", "ip");
		indexed.put("ratelimit.policies.p.key[1]", "header:X-Tenant");
		assertThat(this.factory.create(bind(indexed)).policy("p").key()).isEqualTo(composite);
		assertThat(this.factory.create(bind(limit("fixed-window", "limit", "3", "window", "1s"))).policy("p").key())
			.as("the default").isEqualTo(new KeySource.ApiKey());
	}

	@Test
	void bindsMethodsPathsAndExemptions() {
		Map<String, String> properties = new HashMap<>(limit("fixed-window", "limit", "3", "window", "1s"));
		properties.put("ratelimit.tiers.api-keys.vip-key", "anonymous");
		properties.put("ratelimit.policies.p.methods", "POST,PUT");
		properties.put("ratelimit.policies.p.paths[0]", "/api/**");
		properties.put("ratelimit.policies.p.exempt.addresses", "10.0.0.0/8, 192.0.2.7");
		properties.put("ratelimit.policies.p.exempt.api-keys[0]", "vip-key");
		properties.put("ratelimit.policies.p.exempt.tiers[0]", "anonymous");
		RequestScope scope = this.factory.create(bind(properties)).policy("p").scope();
		assertThat(scope.methods()).containsExactlyInAnyOrder(HttpMethod.POST, HttpMethod.PUT);
		assertThat(scope.paths()).extracting(PathPattern::getPatternString).containsExactly("/api/**");
		assertThat(scope.exemptAddresses()).extracting(Object::toString).containsExactly("10.0.0.0/8", "192.0.2.7/32");
		assertThat(scope.exemptApiKeys()).containsExactly("vip-key");
		assertThat(scope.exemptTiers()).containsExactly("anonymous");
		assertThat(this.factory.create(bind(limit("fixed-window", "limit", "3", "window", "1s"))).policy("p").scope())
			.as("unset").isEqualTo(RequestScope.EVERY_REQUEST);
	}

	private KeySource keyOf(String key) {
		return this.factory.create(bind(withKey(key))).policy("p").key();
	}

	private static Map<String, String> withKey(String key) {
		Map<String, String> properties = new HashMap<>(limit("fixed-window", "limit", "3", "window", "1s"));
		properties.put("ratelimit.policies.p.key", key);
		return properties;
	}

	private static Map<String, String> limit(String algorithm, String... fields) {
		return limit(0, algorithm, fields);
	}

	private static Map<String, String> limit(int index, String algorithm, String... fields) {
		Map<String, String> properties = new HashMap<>();
		String prefix = "ratelimit.policies.p.tiers.anonymous[" + index + "].";
		if (algorithm != null) {
			properties.put(prefix + "algorithm", algorithm);
		}
		for (int i = 0; i < fields.length; i += 2) {
			properties.put(prefix + fields[i], fields[i + 1]);
		}
		return properties;
	}

	private void assertProblems(Map<String, String> properties, String... expected) {
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> this.factory.create(bind(properties)))
			.satisfies((ex) -> assertThat(ex.getProblems()).extracting(ConfigurationProblem::describe)
				.containsExactly(expected));
	}

	static RateLimitProperties bind(Map<String, String> properties) {
		return new Binder(new MapConfigurationPropertySource(properties))
			.bindOrCreate("ratelimit", Bindable.of(RateLimitProperties.class));
	}

}
