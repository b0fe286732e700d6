package dev.ratelimit.policy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.policy.PolicySettings.AfterResponseSpec;
import dev.ratelimit.policy.PolicySettings.LimitSpec;
import dev.ratelimit.policy.PolicySettings.PolicySpec;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Policies built from plain settings, without the properties they are bound from (the
 * rules one by one: {@code PoliciesFromPropertiesTests}).
 */
class RateLimitPolicyFactoryTests {

	private final List<String> tiersChecked = new ArrayList<>();

	private final RateLimitPolicyFactory factory = new RateLimitPolicyFactory(Set.of("tenantKeyResolver"), false,
			false, (policyId, tier, tierPath, problems) -> this.tiersChecked.add(policyId + " " + tierPath));

	@Test
	void buildsPoliciesAndHandsEachValidTierToTheTierRule() {
		Map<String, List<LimitSpec>> tiers = new LinkedHashMap<>();
		tiers.put("anonymous", List.of(fixedWindow(5)));
		tiers.put("pro", List.of(fixedWindow(50)));
		RateLimitPolicies policies = this.factory.create(settings(new PolicySpec("#{@tenantKeyResolver}", false, 1,
				null, null, new LinkedHashMap<>(tiers), OnMissingKey.CLIENT_ADDRESS, null, AfterResponseSpec.NONE)));
		RateLimitPolicy policy = policies.policy("p");
		assertThat(policy.key()).isEqualTo(new KeySource.Bean("tenantKeyResolver"));
		assertThat(policy.store()).isEqualTo(StoreType.CAFFEINE);
		assertThat(policy.tiers().get("pro").limits()).containsExactly(new FixedWindow(50, Duration.ofSeconds(1)));
		assertThat(policy.defaultTier()).isSameAs(policy.tiers().get("anonymous"));
		assertThat(this.tiersChecked).containsExactly("p ratelimit.policies.p.tiers.anonymous",
				"p ratelimit.policies.p.tiers.pro");
	}

	@Test
	void problemsOfTheTierRuleAreReportedWithThePolicies() {
		RateLimitPolicyFactory factory = new RateLimitPolicyFactory(null, false, false, (policyId, tier, tierPath,
				problems) -> problems.add(new ConfigurationProblem(tierPath, tier.name(), "must follow the rule")));
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> factory.create(settings(new PolicySpec("ip", false, 0, null, null,
					new LinkedHashMap<>(Map.of("anonymous", List.of(fixedWindow(5)))), OnMissingKey.CLIENT_ADDRESS,
					null, AfterResponseSpec.NONE))))
			.satisfies((ex) -> assertThat(ex.getProblems()).extracting(ConfigurationProblem::describe)
				.containsExactly("ratelimit.policies.p.cost: was 0, must be a positive number",
						"ratelimit.policies.p.tiers.anonymous: was anonymous, must follow the rule"));
	}

	private static LimitSpec fixedWindow(long limit) {
		return new LimitSpec(null, "fixed-window", limit, Duration.ofSeconds(1), null, null, null, null, null, null);
	}

	private static PolicySettings settings(PolicySpec policy) {
		return new PolicySettings("X-API-Key", StoreType.CAFFEINE, "anonymous", Map.of(), null, null,
				Map.of("p", policy), List.of(), ForwardedHeader.X_FORWARDED_FOR);
	}

}
