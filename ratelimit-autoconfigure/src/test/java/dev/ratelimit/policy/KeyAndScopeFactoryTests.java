package dev.ratelimit.policy;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.policy.PolicySettings.AfterResponseSpec;
import dev.ratelimit.policy.PolicySettings.LimitSpec;
import dev.ratelimit.policy.PolicySettings.PolicySpec;
import dev.ratelimit.policy.PolicySettings.ScopeSpec;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpMethod;
import org.springframework.http.server.PathContainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A policy's composite key and scope built from plain settings: every part, every
 * entry of {@code methods}, {@code paths} and {@code exempt}, and every problem each can
 * have, named by its property.
 */
class KeyAndScopeFactoryTests {

	private static final String KEY_SYNTAX = "must be api-key, ip, principal, route, method, path, header:<Name>, "
			+ "query:<Name>, cookie:<Name>, claim:<Name> or #{@beanName}";

	private RateLimitPolicyFactory factory = new RateLimitPolicyFactory(Set.of("tenantKeyResolver"), true, false,
			(policyId, tier, tierPath, problems) -> {
			});

	@Test
	void everyNewKindIsAKeyOfItsOwn() {
		assertThat(keyOf("method")).isEqualTo(new KeySource.Method());
		assertThat(keyOf("path")).isEqualTo(new KeySource.Path());
		assertThat(keyOf("query:page")).isEqualTo(new KeySource.Query("page"));
		assertThat(keyOf("cookie:session")).isEqualTo(new KeySource.Cookie("session"));
		assertThat(keyOf("claim:sub")).isEqualTo(new KeySource.Claim("sub"));
		assertThat(keyOf("ip")).as("one entry is the key itself, as a scalar binds")
			.isEqualTo(new KeySource.ClientIp());
	}

	@Test
	void aListOfKeysIsOneCompositeKeyShownAsConfigured() {
		KeySource key = keyOf("ip", "api-key", "principal", "route", "method", "path", "header:X-Tenant", "query:page",
				"cookie:session", "claim:tenant", "#{@tenantKeyResolver}");
		assertThat(key).isEqualTo(new KeySource.Composite(List.of(new KeySource.ClientIp(), new KeySource.ApiKey(),
				new KeySource.Principal(), new KeySource.Route(), new KeySource.Method(), new KeySource.Path(),
				new KeySource.Header("X-Tenant"), new KeySource.Query("page"), new KeySource.Cookie("session"),
				new KeySource.Claim("tenant"), new KeySource.Bean("tenantKeyResolver"))));
		assertThat(key.configValue()).isEqualTo("[ip, api-key, principal, route, method, path, header:X-Tenant, "
				+ "query:page, cookie:session, claim:tenant, #{@tenantKeyResolver}]");
		assertThat(key.usesKeyResolverBean()).isTrue();
		assertThat(keyOf("ip", "method").usesKeyResolverBean()).isFalse();
	}

	@Test
	void unknownPartsAreRefusedWithTheNearestKnownOne() {
		assertProblems(key("principle"), "ratelimit.policies.p.key: was 'principle', " + KEY_SYNTAX
				+ "; did you mean principal?");
		assertProblems(key("ip", "heder:X-Tenant"), "ratelimit.policies.p.key[1]: was 'heder:X-Tenant', "
				+ KEY_SYNTAX + "; did you mean header:X-Tenant?");
		assertProblems(key("qeury:page", "ip"), "ratelimit.policies.p.key[0]: was 'qeury:page', " + KEY_SYNTAX
				+ "; did you mean query:page?");
		assertProblems(key("ip", "user"), "ratelimit.policies.p.key[1]: was 'user', " + KEY_SYNTAX);
		assertProblems(key("ip", " "), "ratelimit.policies.p.key[1]: was ' ', " + KEY_SYNTAX);
	}

	@Test
	void anEmptyKeyIsRefused() {
		assertProblems(key(), "ratelimit.policies.p.key: was [], " + KEY_SYNTAX
				+ ", or list several of them, such as [ip, header:X-Tenant]");
	}

	@Test
	void aPartTwiceIsRefusedNamingTheFirst() {
		assertProblems(key("ip", "method", "ip"), "ratelimit.policies.p.key[2]: was 'ip', must not repeat "
				+ "ratelimit.policies.p.key[0]: each part of a composite key is read once");
		assertProblems(key("header:X-Tenant", "header:x-tenant"), "ratelimit.policies.p.key[1]: was "
				+ "'header:x-tenant', must not repeat ratelimit.policies.p.key[0]: each part of a composite key is "
				+ "read once");
	}

	@Test
	void aNamedPartWithoutItsNameIsRefused() {
		assertProblems(key("ip", "query:", "cookie:", "claim: ", "header:"),
				"ratelimit.policies.p.key[1]: was 'query:', must name a query parameter after 'query:', for example "
						+ "query:page",
				"ratelimit.policies.p.key[2]: was 'cookie:', must name a cookie after 'cookie:', for example "
						+ "cookie:session",
				"ratelimit.policies.p.key[3]: was 'claim: ', must name a claim of the request's token after "
						+ "'claim:', for example claim:sub",
				"ratelimit.policies.p.key[4]: was 'header:', must name an HTTP header after 'header:', for example "
						+ "header:X-Tenant");
		assertProblems(key("cookie:my session"), "ratelimit.policies.p.key: was 'cookie:my session', must name a "
				+ "cookie after 'cookie:', a token without spaces or separators (RFC 6265 section 4.1.1), for "
				+ "example cookie:session");
	}

	@Test
	void aClaimNeedsTheResourceServerAndABeanMustExist() {
		this.factory = new RateLimitPolicyFactory(Set.of(), false, false, (policyId, tier, tierPath, problems) -> {
		});
		assertProblems(key("ip", "claim:tenant", "#{@tenantKeyResolver}"),
				"ratelimit.policies.p.key[1]: was 'claim:tenant', needs Spring Security's OAuth2 resource server "
						+ "(spring-boot-starter-oauth2-resource-server) on the classpath to read the request's token",
				"ratelimit.policies.p.key[2]: was '#{@tenantKeyResolver}', must name a KeyResolver bean "
						+ "(KeyResolver beans: none)");
	}

	@Test
	void aCompositeKeyMayRejectWhenAPartCanBeMissing() {
		for (List<String> key : List.of(List.of("ip", "api-key"), List.of("route", "header:X-Tenant"),
				List.of("method", "query:page"), List.of("ip", "cookie:session"), List.of("ip", "claim:tenant"),
				List.of("ip", "principal"), List.of("ip", "#{@tenantKeyResolver}"))) {
			RateLimitPolicy policy = this.factory
				.create(settings(spec(key, OnMissingKey.REJECT, 400, ScopeSpec.EVERY_REQUEST)))
				.policy("p");
			assertThat(policy.onMissingKey()).as("%s", key).isEqualTo(OnMissingKey.REJECT);
		}
		assertProblems(spec(List.of("ip", "method", "path"), OnMissingKey.REJECT, null, ScopeSpec.EVERY_REQUEST),
				"ratelimit.policies.p.on-missing-key: was reject, must be client-address for key [ip, method, path], "
						+ "which every request has (only principal, header:<Name>, query:<Name>, cookie:<Name>, "
						+ "claim:<Name> and #{@beanName} keys can be missing, and composite keys with such a part or "
						+ "api-key)");
	}

	@Test
	void aScopeIsBuiltFromItsMethodsPathsAndExemptions() {
		ScopeSpec spec = new ScopeSpec(List.of("POST", "PATCH"), List.of("/api/**", "/orders/{id}"),
				List.of("10.0.0.0/8", "2001:db8::/32", "192.0.2.7"), List.of("vip-key"), List.of("pro"));
		RequestScope scope = scopeOf(spec);
		assertThat(scopeOf(spec)).as("built again, as a reload builds it, it is the same").isEqualTo(scope);
		assertThat(scope.methods()).containsExactlyInAnyOrder(HttpMethod.POST, HttpMethod.PATCH);
		assertThat(scope.covers(HttpMethod.POST, PathContainer.parsePath("/api/a/b"))).isTrue();
		assertThat(scope.covers(HttpMethod.PATCH, PathContainer.parsePath("/orders/7"))).isTrue();
		assertThat(scope.covers(HttpMethod.GET, PathContainer.parsePath("/api/a"))).isFalse();
		assertThat(scope.covers(HttpMethod.POST, PathContainer.parsePath("/orders/7/lines"))).isFalse();
		assertThat(scope.covers(HttpMethod.POST, PathContainer.parsePath("/other"))).isFalse();
		assertThat(scope.exemptsAddress(IpAddress.parse("10.20.30.40"))).isTrue();
		assertThat(scope.exemptsAddress(IpAddress.parse("2001:db8::1"))).isTrue();
		assertThat(scope.exemptsAddress(IpAddress.parse("192.0.2.7"))).isTrue();
		assertThat(scope.exemptsAddress(IpAddress.parse("192.0.2.8"))).isFalse();
		assertThat(scope.exemptsAddress(IpAddress.parse("11.0.0.1"))).isFalse();
		assertThat(scope.exempts("vip-key", "anonymous")).isTrue();
		assertThat(scope.exempts(null, "pro")).isTrue();
		assertThat(scope.exempts("other-key", "anonymous")).isFalse();
		assertThat(scope.needsRequest()).isTrue();
		assertThat(scope.toString()).doesNotContain("vip-key");
	}

	@Test
	void whatAKeyedRateLimiterCanApplyNeedsNoRequest() {
		assertThat(scopeOf(ScopeSpec.EVERY_REQUEST)).isEqualTo(RequestScope.EVERY_REQUEST);
		RequestScope byKeyAndTier = scopeOf(new ScopeSpec(null, null, List.of(), List.of("vip-key"), List.of("pro")));
		assertThat(byKeyAndTier.coversEveryRequest()).isTrue();
		assertThat(byKeyAndTier.needsRequest()).isFalse();
		assertThat(scopeOf(new ScopeSpec(List.of("GET"), null, List.of(), List.of(), List.of())).needsRequest())
			.isTrue();
		assertThat(scopeOf(new ScopeSpec(null, List.of("/a"), List.of(), List.of(), List.of())).needsRequest())
			.isTrue();
		assertThat(scopeOf(new ScopeSpec(null, null, List.of("10.0.0.1"), List.of(), List.of())).needsRequest())
			.isTrue();
	}

	@Test
	void methodsMustBeHttpMethodsAsWritten() {
		assertProblems(scope(new ScopeSpec(List.of("post", "POTS", "FOO", ""), null, List.of(), List.of(), List.of())),
				"ratelimit.policies.p.methods[0]: was 'post', must be written POST: methods are case-sensitive "
						+ "(RFC 9110 section 9.1)",
				"ratelimit.policies.p.methods[1]: was 'POTS', must be an HTTP method: GET, HEAD, POST, PUT, DELETE, "
						+ "CONNECT, OPTIONS, TRACE (RFC 9110 section 9.3) or PATCH (RFC 5789); did you mean POST?",
				"ratelimit.policies.p.methods[2]: was 'FOO', must be an HTTP method: GET, HEAD, POST, PUT, DELETE, "
						+ "CONNECT, OPTIONS, TRACE (RFC 9110 section 9.3) or PATCH (RFC 5789)",
				"ratelimit.policies.p.methods[3]: was '', must be an HTTP method: GET, HEAD, POST, PUT, DELETE, "
						+ "CONNECT, OPTIONS, TRACE (RFC 9110 section 9.3) or PATCH (RFC 5789)");
		assertProblems(scope(new ScopeSpec(List.of(), null, List.of(), List.of(), List.of())),
				"ratelimit.policies.p.methods: was [], must list at least one method, such as [POST]; without "
						+ "methods the policy applies to every method");
	}

	@Test
	void pathsMustBePathPatterns() {
		assertProblems(scope(new ScopeSpec(null, List.of("api/**", "/api/{id", "/ok/**"), List.of(), List.of(),
				List.of())),
				"ratelimit.policies.p.paths[0]: was 'api/**', must be a path pattern starting with /, such as "
						+ "/api/orders/**",
				"ratelimit.policies.p.paths[1]: was '/api/{id', must be a valid path pattern: Expected close "
						+ "capture character after variable name } at character 8");
		assertProblems(scope(new ScopeSpec(null, List.of(), List.of(), List.of(), List.of())),
				"ratelimit.policies.p.paths: was [], must list at least one path pattern, such as [/api/**]; "
						+ "without paths the policy applies to every path");
	}

	@Test
	void exemptAddressesMustBeAddressesOrBlocks() {
		assertProblems(scope(new ScopeSpec(null, null,
				List.of("not-an-ip", "10.0.0.0/33", "10.0.0.1/8", "0.0.0.0/0", "::/0", "10.0.0.0/8"), List.of(),
				List.of())),
				"ratelimit.policies.p.exempt.addresses[0]: was 'not-an-ip', must be an IP address or a CIDR block, "
						+ "such as 10.0.0.0/8 or 2001:db8::/32",
				"ratelimit.policies.p.exempt.addresses[1]: was '10.0.0.0/33', must have a prefix length from 1 to "
						+ "32 after the '/'",
				"ratelimit.policies.p.exempt.addresses[2]: was '10.0.0.1/8', must have no address bits set after "
						+ "the prefix (did you mean 10.0.0.0/8?)",
				"ratelimit.policies.p.exempt.addresses[3]: was '0.0.0.0/0', must not be a /0 block, which would "
						+ "exempt every client",
				"ratelimit.policies.p.exempt.addresses[4]: was '::/0', must not be a /0 block, which would exempt "
						+ "every client");
	}

	@Test
	void exemptApiKeysMustBeConfiguredAndAreShownMasked() {
		assertProblems(scope(new ScopeSpec(null, null, List.of(), List.of("vip-key", "secret-unknown-key"),
				List.of())),
				"ratelimit.policies.p.exempt.api-keys[1]: was 'secr****', must be an API key configured under "
						+ "ratelimit.tiers.api-keys (1 configured)");
	}

	@Test
	void exemptTiersMustBeThePolicysOwn() {
		assertProblems(scope(new ScopeSpec(null, null, List.of(), List.of(), List.of("pro", "por", "gold"))),
				"ratelimit.policies.p.exempt.tiers[1]: was 'por', must be a tier of this policy (tiers: "
						+ "[anonymous, pro]); did you mean pro?",
				"ratelimit.policies.p.exempt.tiers[2]: was 'gold', must be a tier of this policy (tiers: "
						+ "[anonymous, pro])");
	}

	@Test
	void everyProblemOfKeyAndScopeIsInOneReport() {
		assertProblems(spec(List.of("ip", "ip"), OnMissingKey.CLIENT_ADDRESS, null,
				new ScopeSpec(List.of("get"), List.of("x"), List.of("x"), List.of("x"), List.of("x"))),
				"ratelimit.policies.p.key[1]: was 'ip', must not repeat ratelimit.policies.p.key[0]: each part of a "
						+ "composite key is read once",
				"ratelimit.policies.p.methods[0]: was 'get', must be written GET: methods are case-sensitive "
						+ "(RFC 9110 section 9.1)",
				"ratelimit.policies.p.paths[0]: was 'x', must be a path pattern starting with /, such as "
						+ "/api/orders/**",
				"ratelimit.policies.p.exempt.addresses[0]: was 'x', must be an IP address or a CIDR block, such as "
						+ "10.0.0.0/8 or 2001:db8::/32",
				"ratelimit.policies.p.exempt.api-keys[0]: was '****', must be an API key configured under "
						+ "ratelimit.tiers.api-keys (1 configured)",
				"ratelimit.policies.p.exempt.tiers[0]: was 'x', must be a tier of this policy (tiers: "
						+ "[anonymous, pro])");
	}

	private KeySource keyOf(String... key) {
		return this.factory.create(settings(key(key))).policy("p").key();
	}

	private RequestScope scopeOf(ScopeSpec scope) {
		return this.factory.create(settings(scope(scope))).policy("p").scope();
	}

	private static PolicySpec key(String... key) {
		return spec(Arrays.asList(key), OnMissingKey.CLIENT_ADDRESS, null, ScopeSpec.EVERY_REQUEST);
	}

	private static PolicySpec scope(ScopeSpec scope) {
		return spec(List.of("ip"), OnMissingKey.CLIENT_ADDRESS, null, scope);
	}

	private static PolicySpec spec(List<String> key, OnMissingKey onMissingKey, Integer missingKeyStatus,
			ScopeSpec scope) {
		Map<String, List<LimitSpec>> tiers = new LinkedHashMap<>();
		tiers.put("anonymous", List.of(fixedWindow(5)));
		tiers.put("pro", List.of(fixedWindow(50)));
		return new PolicySpec(key, false, 1, null, null, new LinkedHashMap<>(tiers), onMissingKey, missingKeyStatus,
				AfterResponseSpec.NONE, scope);
	}

	private void assertProblems(PolicySpec policy, String... expected) {
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> this.factory.create(settings(policy)))
			.satisfies((ex) -> assertThat(ex.getProblems()).extracting(ConfigurationProblem::describe)
				.containsExactly(expected));
	}

	private static LimitSpec fixedWindow(long limit) {
		return new LimitSpec(null, "fixed-window", limit, Duration.ofSeconds(1), null, null, null, null, null, null);
	}

	private static PolicySettings settings(PolicySpec policy) {
		return new PolicySettings("X-API-Key", StoreType.CAFFEINE, "anonymous", Map.of("vip-key", "pro"), null, null,
				Map.of("p", policy), List.of(), ForwardedHeader.X_FORWARDED_FOR);
	}

}
