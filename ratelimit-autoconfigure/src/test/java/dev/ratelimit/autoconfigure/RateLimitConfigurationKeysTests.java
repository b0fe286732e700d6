package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.web.HeaderStyle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static dev.ratelimit.testsupport.StartUpProblems.problems;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code ratelimit.*} key is a known property, and every enum value one of its
 * configuration spellings: otherwise start-up and a live reload fail, naming the key
 * and the nearest valid one, in one report with every other problem.
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitConfigurationKeysTests {

	private static final String LIMIT = "ratelimit.policies.orders.tiers.anonymous[0].";

	private static final String[] ORDERS = { LIMIT + "algorithm=fixed-window", LIMIT + "limit=60",
			LIMIT + "window=1m" };

	private static final String[] TOKEN_BUCKET = { LIMIT + "algorithm=token-bucket", LIMIT + "capacity=3",
			LIMIT + "refill-rate=3" };

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitDisabledAutoConfiguration.class));

	@Test
	void aMisspeltRefillPeriodStopsStartUpInsteadOfRefillingEverySecond() {
		this.contextRunner.withPropertyValues(TOKEN_BUCKET)
			.withPropertyValues(LIMIT + "refil-period=1m")
			.run((context) -> assertThat(problems(context)).containsExactly(
					LIMIT + "refil-period: was 1m, is not a known key; did you mean refill-period?"));
	}

	@Test
	void aMisspeltShadowIsNamed() {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.policies.orders.shadwo=true")
			.run((context) -> assertThat(problems(context)).containsExactly(
					"ratelimit.policies.orders.shadwo: was true, is not a known key; did you mean shadow?"));
	}

	@Test
	void aMisspeltExemptionIsNamed() {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.policies.orders.exempt.adresses=10.0.0.0/8")
			.run((context) -> assertThat(problems(context)).containsExactly(
					"ratelimit.policies.orders.exempt.adresses: was 10.0.0.0/8, is not a known key; did you mean "
							+ "addresses?"));
	}

	@Test
	void aMisspeltStoreIsNamedAtTheTopLevel() {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.sotre=redis")
			.run((context) -> assertThat(problems(context))
				.containsExactly("ratelimit.sotre: was redis, is not a known key; did you mean store?"));
	}

	@Test
	void aMisspeltStoreIsNamedInAPolicy() {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.policies.orders.sotre=redis")
			.run((context) -> assertThat(problems(context)).containsExactly(
					"ratelimit.policies.orders.sotre: was redis, is not a known key; did you mean store?"));
	}

	@Test
	void misspeltPoliciesAreOneProblemForEveryKeyUnderThem() {
		this.contextRunner
			.withPropertyValues("ratelimit.polices.orders.tiers.anonymous[0].algorithm=fixed-window",
					"ratelimit.polices.orders.tiers.anonymous[0].limit=60",
					"ratelimit.polices.orders.tiers.anonymous[0].window=1m")
			.run((context) -> assertThat(problems(context)).containsExactly(
					"ratelimit.polices: was set (3 keys under it), is not a known key; did you mean policies?"));
	}

	@Test
	void aMisspeltApiKeyHeaderIsNamed() {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.api-key-heder=X-Key")
			.run((context) -> assertThat(problems(context)).containsExactly(
					"ratelimit.api-key-heder: was X-Key, is not a known key; did you mean api-key-header?"));
	}

	@Test
	void aMisspeltLimitIsNamedInTheSameReportAsTheLimitItLeavesUnset() {
		this.contextRunner
			.withPropertyValues(LIMIT + "algorithm=fixed-window", LIMIT + "limt=3", LIMIT + "window=1m")
			.run((context) -> assertThat(problems(context)).hasSize(2)
				.contains(LIMIT + "limt: was 3, is not a known key; did you mean limit?")
				.anyMatch((problem) -> problem.startsWith(LIMIT + "limit: was not set")));
	}

	@Test
	void keysOfTheOtherPropertiesClassesAndTheirConditionsAreChecked() {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.redis.timout=20ms", "ratelimit.hybrid.sync-intervall=1s",
					"ratelimit.actuator.dashbord.enabled=true", "ratelimit.enabeld=false")
			.run((context) -> assertThat(problems(context)).containsExactlyInAnyOrder(
					"ratelimit.redis.timout: was 20ms, is not a known key; did you mean timeout?",
					"ratelimit.hybrid.sync-intervall: was 1s, is not a known key; did you mean sync-interval?",
					"ratelimit.actuator.dashbord: was set (ratelimit.actuator.dashbord.enabled), is not a known key;"
							+ " did you mean dashboard?",
					"ratelimit.enabeld: was false, is not a known key; did you mean enabled?"));
	}

	@Test
	void aKeyFarFromEveryValidOneListsTheKeysOfItsLevel() {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.caffeine.size=10")
			.run((context) -> assertThat(problems(context)).containsExactly(
					"ratelimit.caffeine.size: was 10, is not a known key; the keys of ratelimit.caffeine are "
							+ "maximum-keys"));
	}

	@Test
	void keysAreCheckedWhenRateLimitingIsDisabled() {
		this.contextRunner.withPropertyValues("ratelimit.enabled=false", "ratelimit.sotre=redis")
			.run((context) -> assertThat(problems(context))
				.containsExactly("ratelimit.sotre: was redis, is not a known key; did you mean store?"));
	}

	@Test
	void freeMapKeysListsAndEveryPropertiesClassAreNotFlagged() {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.enabled=true", "ratelimit.tiers.api-keys.key-1=pro",
					"ratelimit.tiers.api-keys.[key.with.dots]=pro", "ratelimit.policies.orders.tiers.pro[0].algorithm=token-bucket",
					"ratelimit.policies.orders.tiers.pro[0].capacity=10",
					"ratelimit.policies.orders.tiers.pro[0].refill-rate=1",
					"ratelimit.policies.orders.tiers.pro[0].refill-period=1m",
					"ratelimit.policies.orders.tiers.pro[1].algorithm=fixed-window",
					"ratelimit.policies.orders.tiers.pro[1].limit=100", "ratelimit.policies.orders.tiers.pro[1].window=1h",
					"ratelimit.policies.any-id.tiers.anonymous[0].algorithm=leaky-bucket",
					"ratelimit.policies.any-id.tiers.anonymous[0].capacity=5",
					"ratelimit.policies.any-id.tiers.anonymous[0].drain-rate=1",
					"ratelimit.trusted-proxies[0]=10.0.0.0/8", "ratelimit.trusted-proxies[1]=192.0.2.1",
					"ratelimit.web.routes[0].paths[0]=/orders/**", "ratelimit.web.routes[0].methods[0]=GET",
					"ratelimit.web.routes[0].policy=orders", "ratelimit.tiers.default=anonymous",
					"ratelimit.problem.type=https://example.com/quota", "ratelimit.caffeine.maximum-keys=10",
					"ratelimit.redis.key-prefix=x", "ratelimit.redis.circuit-breaker.failure-threshold=3",
					"ratelimit.hybrid.sync-interval=50ms", "ratelimit.actuator.show-keys=always",
					"ratelimit.actuator.dashboard.enabled=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RateLimitPolicies.class).policy("any-id")).isNotNull();
			});
	}

	@Test
	void aListElementWhoseKeysAreAllMisspeltIsNamed() {
		this.contextRunner.withPropertyValues(LIMIT + "capacty=5")
			.run((context) -> assertThat(problems(context)).containsExactly(
					LIMIT + "capacty: was 5, is not a known key; did you mean capacity?"));
	}

	@Test
	void aListLeftUnsetForItsMisspeltElementIsNotReportedAgainAsAMissingTier() {
		this.contextRunner
			.withPropertyValues("ratelimit.policies.orders.tiers.free[0].algorithm=fixed-window",
					"ratelimit.policies.orders.tiers.free[0].limit=10", "ratelimit.policies.orders.tiers.free[0].window=1m")
			.withPropertyValues(LIMIT + "capacty=5")
			.run((context) -> assertThat(problems(context)).containsExactly(
					LIMIT + "capacty: was 5, is not a known key; did you mean capacity?"));
	}

	/**
	 * Its elements would be lost without a word: start-up fails as Spring Boot's binding
	 * does, and a reload is rejected.
	 */
	@Test
	void aListCutShortByAnElementThatBindsNothingIsRefusedEvenWhenUnknownKeysPass(CapturedOutput output) {
		this.contextRunner.withPropertyValues(LIMIT + "capacty=5", "ratelimit.ignore-unknown-keys=true")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining(LIMIT + "capacty"));
		this.contextRunner.withPropertyValues(ORDERS).withPropertyValues("ratelimit.ignore-unknown-keys=true")
			.run((context) -> {
				RateLimitPolicies inForce = context.getBean(LivePolicies.class).get();
				change(context, "ratelimit.policies.orders.tiers.anonymous[2].limit=7");
				assertThat(context.getBean(LivePolicies.class).get()).isSameAs(inForce);
				assertThat(output).contains("Rate limit settings change rejected")
					.contains("ratelimit.policies.orders.tiers.anonymous[2].limit");
			});
	}

	@Test
	void aListElementAfterAGapInTheIndexesIsNamed() {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.policies.orders.tiers.anonymous[2].algorithm=fixed-window")
			.run((context) -> assertThat(problems(context)).containsExactly(
					"ratelimit.policies.orders.tiers.anonymous[2]: was set "
							+ "(ratelimit.policies.orders.tiers.anonymous[2].algorithm), is not bound: a list's "
							+ "elements are numbered from [0] without a gap"));
	}

	@Test
	void aListSetWholeByAnotherSourceLeavesTheElementsItOverridesUnflagged() {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.policies.orders.tiers.anonymous[1].algorithm=fixed-window",
					"ratelimit.policies.orders.tiers.anonymous[1].limit=1000",
					"ratelimit.policies.orders.tiers.anonymous[1].window=1d", "ratelimit.trusted-proxies[0]=10.0.0.0/8",
					"ratelimit.trusted-proxies[1]=192.0.2.1")
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.addFirst(new MapPropertySource("profile", Map.of(LIMIT + "algorithm", "fixed-window", LIMIT + "limit",
						"5", LIMIT + "window", "1s", "ratelimit.trusted-proxies[0]", "192.0.2.2"))))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RateLimitProperties.class).getTrustedProxies()).containsExactly("192.0.2.2");
			});
	}

	@Test
	void camelCaseKeysAreNotFlagged() {
		this.contextRunner.withPropertyValues(TOKEN_BUCKET)
			.withPropertyValues(LIMIT + "refillPeriod=1m", "ratelimit.apiKeyHeader=X-Key",
					"ratelimit.trustedProxies[0]=10.0.0.0/8", "ratelimit.redis.circuitBreaker.openDuration=1s",
					"ratelimit.policies.orders.onMissingKey=client-address")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RateLimitProperties.class).getPolicies()
					.get("orders").getTiers().get("anonymous").get(0).getRefillPeriod()).isEqualTo(Duration.ofMinutes(1));
			});
	}

	@Test
	void aMisspeltCamelCaseKeyIsNamedAsWritten() {
		this.contextRunner.withPropertyValues(TOKEN_BUCKET)
			.withPropertyValues(LIMIT + "refilPeriod=1m")
			.run((context) -> assertThat(problems(context)).containsExactly(
					LIMIT + "refilPeriod: was 1m, is not a known key; did you mean refill-period?"));
	}

	@Test
	void environmentVariablesAreNotFlaggedAndTheirTyposAre() {
		Map<String, Object> variables = Map.of("RATELIMIT_POLICIES_ORDERS_TIERS_ANONYMOUS_0_ALGORITHM", "token-bucket",
				"RATELIMIT_POLICIES_ORDERS_TIERS_ANONYMOUS_0_CAPACITY", "3",
				"RATELIMIT_POLICIES_ORDERS_TIERS_ANONYMOUS_0_REFILLRATE", "3",
				"RATELIMIT_POLICIES_ORDERS_TIERS_ANONYMOUS_0_REFILLPERIOD", "1m", "RATELIMIT_APIKEYHEADER", "X-Key");
		this.contextRunner.withInitializer((context) -> environmentVariables(context.getEnvironment(), variables))
			.run((context) -> assertThat(context).hasNotFailed());
		this.contextRunner.withInitializer((context) -> environmentVariables(context.getEnvironment(),
				Map.of("RATELIMIT_POLICIES_ORDERS_SOTRE", "redis", "RATELIMIT_POLICIES_ORDERS_KEY", "ip")))
			.withPropertyValues(ORDERS)
			.run((context) -> assertThat(problems(context)).containsExactly(
					"ratelimit.policies.orders.sotre: was redis, is not a known key; did you mean store?"));
	}

	@Test
	void unknownKeysPassWhenTheApplicationSaysSo() {
		this.contextRunner.withPropertyValues(TOKEN_BUCKET)
			.withPropertyValues(LIMIT + "refil-period=1m", "ratelimit.sotre=redis", "ratelimit.ignore-unknown-keys=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RateLimitPolicies.class).policy("orders")).isNotNull();
			});
	}

	@Test
	void theFailureAnalysisNamesTheKeyAndHowToLetUnknownKeysPass() {
		this.contextRunner.withPropertyValues(TOKEN_BUCKET)
			.withPropertyValues(LIMIT + "refil-period=1m")
			.run((context) -> {
				FailureAnalysis analysis = new InvalidRateLimitConfigurationFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("The rate limit configuration is invalid:")
					.contains("    " + LIMIT + "refil-period: was 1m, is not a known key; did you mean refill-period?");
				assertThat(analysis.getAction()).contains("Correct the properties listed above")
					.contains("set ratelimit.ignore-unknown-keys=true");
			});
	}

	@Test
	void enumValuesAreReportedInTheirConfigurationSpellingInOneReport() {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.headers=draft6", "ratelimit.store=redsi",
					"ratelimit.forwarded-header=x-forwarded", "ratelimit.policies.orders.on-missing-key=rejet",
					"ratelimit.policies.orders.store=hybird", "ratelimit.redis.on-failure=alow",
					"ratelimit.actuator.show-keys=sometimes", "ratelimit.sotre=redis")
			.run((context) -> assertThat(problems(context)).containsExactlyInAnyOrder(
					"ratelimit.headers: was draft6, must be draft-06, draft-11, x-ratelimit or none",
					"ratelimit.store: was redsi, must be caffeine, redis or hybrid",
					"ratelimit.forwarded-header: was x-forwarded, must be x-forwarded-for or forwarded",
					"ratelimit.policies.orders.on-missing-key: was rejet, must be client-address or reject",
					"ratelimit.policies.orders.store: was hybird, must be caffeine, redis or hybrid",
					"ratelimit.redis.on-failure: was alow, must be allow, deny or local",
					"ratelimit.actuator.show-keys: was sometimes, must be never or always",
					"ratelimit.sotre: was redis, is not a known key; did you mean store?"));
	}

	@Test
	void numbersDurationsAndBooleansThatDoNotConvertAreInTheSameReport() {
		this.contextRunner
			.withPropertyValues(LIMIT + "algorithm=token-bucket", LIMIT + "capacity=ten", LIMIT + "refill-rate=fast",
					LIMIT + "refill-period=1 minute", "ratelimit.policies.orders.shadow=sure",
					"ratelimit.redis.timeout=soon", "ratelimit.policies.orders.sotre=redis",
					"ratelimit.policies.orders.tiers.anonymous[1].algorithm=fixed-window",
					"ratelimit.policies.orders.tiers.anonymous[1].window=1m")
			.run((context) -> assertThat(problems(context)).containsExactlyInAnyOrder(
					LIMIT + "capacity: was ten, must be a whole number",
					LIMIT + "refill-rate: was fast, must be a number",
					LIMIT + "refill-period: was 1 minute, must be a duration (for example 500ms, 1s, 1m, 1d)",
					"ratelimit.policies.orders.shadow: was sure, must be true or false",
					"ratelimit.redis.timeout: was soon, must be a duration (for example 500ms, 1s, 1m, 1d)",
					"ratelimit.policies.orders.sotre: was redis, is not a known key; did you mean store?",
					// Not again as missing, though the policy factory finds them unset.
					"ratelimit.policies.orders.tiers.anonymous[1].limit: was not set, must be set for fixed-window, "
							+ "which takes limit and window"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "draft-11", "DRAFT_11", "draft_11", "Draft-11", "draft11" })
	void everyEnumSpellingThatBindsKeepsBinding(String spelling) {
		this.contextRunner.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.headers=" + spelling)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RateLimitProperties.class).getHeaders()).isEqualTo(HeaderStyle.DRAFT_11);
			});
	}

	@Test
	void aReloadWithAnUnknownKeyIsRejectedAndThePoliciesInForceStay(CapturedOutput output) {
		this.contextRunner.withPropertyValues(TOKEN_BUCKET).run((context) -> {
			RateLimitPolicies inForce = context.getBean(LivePolicies.class).get();
			change(context, LIMIT + "refil-period=1m", "ratelimit.polices.x.key=ip");
			assertThat(context.getBean(LivePolicies.class).get()).isSameAs(inForce);
			assertThat(output).contains("Rate limit settings change rejected")
				.contains(LIMIT + "refil-period: was 1m, is not a known key; did you mean refill-period?")
				.contains("ratelimit.polices: was set (ratelimit.polices.x.key), is not a known key; did you mean "
						+ "policies?");
		});
	}

	@Test
	void aReloadWithAListElementAfterAGapIsRejectedAndThePoliciesInForceStay(CapturedOutput output) {
		this.contextRunner.withPropertyValues(ORDERS).run((context) -> {
			RateLimitPolicies inForce = context.getBean(LivePolicies.class).get();
			change(context, "ratelimit.policies.orders.tiers.anonymous[2].limit=7");
			assertThat(context.getBean(LivePolicies.class).get()).isSameAs(inForce);
			assertThat(output).contains("Rate limit settings change rejected")
				.contains("ratelimit.policies.orders.tiers.anonymous[2]: was set "
						+ "(ratelimit.policies.orders.tiers.anonymous[2].limit), is not bound: a list's elements are "
						+ "numbered from [0] without a gap");
		});
	}

	@Test
	void aReloadWithAnEnumValueThatDoesNotConvertIsRejectedInOneReport(CapturedOutput output) {
		this.contextRunner.withPropertyValues(ORDERS).run((context) -> {
			RateLimitPolicies inForce = context.getBean(LivePolicies.class).get();
			change(context, "ratelimit.policies.orders.store=redsi", LIMIT + "limit=0");
			assertThat(context.getBean(LivePolicies.class).get()).isSameAs(inForce);
			assertThat(output).contains("Rate limit settings change rejected")
				.contains("ratelimit.policies.orders.store: was redsi, must be caffeine, redis or hybrid")
				.contains(LIMIT + "limit: was 0, must be a positive number");
		});
	}

	@Test
	void aReloadIgnoringUnknownKeysIsAccepted() {
		this.contextRunner.withPropertyValues(ORDERS).withPropertyValues("ratelimit.ignore-unknown-keys=true")
			.run((context) -> {
				RateLimitPolicies inForce = context.getBean(LivePolicies.class).get();
				change(context, "ratelimit.sotre=redis", LIMIT + "limit=7");
				assertThat(context.getBean(LivePolicies.class).get()).isNotSameAs(inForce);
			});
	}

	private static void change(AssertableApplicationContext context, String... properties) {
		TestPropertyValues.of(properties).applyTo(context);
		Set<String> keys = new TreeSet<>();
		for (String property : properties) {
			keys.add(property.substring(0, property.indexOf('=')));
		}
		context.publishEvent(new EnvironmentChangeEvent(context, keys));
	}

	private static void environmentVariables(ConfigurableEnvironment environment, Map<String, Object> variables) {
		environment.getPropertySources()
			.addFirst(new SystemEnvironmentPropertySource(
					StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
	}

}
