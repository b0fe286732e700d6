package dev.ratelimit.autoconfigure;

import java.util.Set;

import dev.ratelimit.policy.AfterResponse;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.CountedResponses;
import dev.ratelimit.policy.JsonPointer;
import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.policy.PolicyReloads;
import dev.ratelimit.policy.PolicyReloads.Outcome;
import dev.ratelimit.policy.PolicyReloads.Reload;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.ResponseCostSource;
import dev.ratelimit.web.ResponseCostResolver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;

import static dev.ratelimit.testsupport.StartUpProblems.problems;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a policy settles after the response, as configured: {@code count-responses} lists
 * statuses 100 to 599 and classes 1xx to 5xx, {@code cost-from-response} is
 * {@code header:<Name>}, {@code json:<JSON Pointer>} or {@code resolver} (with a
 * {@code ResponseCostResolver} bean), {@code hide-response-cost-header} goes with a
 * header only, and none of them is on the hybrid store; anything else stops start-up,
 * or is refused by a live reload, naming the property and the value.
 */
class AfterResponseConfigurationTests {

	private static final String POLICY = "ratelimit.policies.login.";

	private static final String LIMIT = POLICY + "tiers.anonymous[0].";

	private static final String[] WINDOW = { LIMIT + "algorithm=fixed-window", LIMIT + "limit=5",
			LIMIT + "window=1m" };

	private static final String COST_SOURCES = "must be header:<Name>, json:<JSON Pointer> or resolver, for example "
			+ "header:X-Token-Usage or json:/usage/total_tokens";

	private static final String NO_SETTLING = "must not be set for a policy on store hybrid, whose nodes each spend "
			+ "leases in their own memory and so cannot settle a request after its response; use store caffeine "
			+ "or redis";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitDisabledAutoConfiguration.class))
		.withPropertyValues(WINDOW);

	@Test
	void aPolicyWithoutThemSettlesNothingAfterTheResponse() {
		this.contextRunner.run((context) -> assertThat(policy(context).afterResponse()).isSameAs(AfterResponse.NONE));
	}

	@Test
	void countResponsesListsStatuses() {
		this.contextRunner.withPropertyValues(POLICY + "count-responses[0]=401", POLICY + "count-responses[1]=403")
			.run((context) -> assertThat(policy(context).afterResponse())
				.isEqualTo(new AfterResponse(new CountedResponses(Set.of(401, 403), Set.of()), null, false)));
	}

	@Test
	void countResponsesListsClassesInEitherCase() {
		this.contextRunner.withPropertyValues(POLICY + "count-responses=4xx,5XX")
			.run((context) -> assertThat(policy(context).afterResponse())
				.isEqualTo(new AfterResponse(new CountedResponses(Set.of(), Set.of(4, 5)), null, false)));
	}

	@Test
	void anEmptyCountResponsesIsRefused() {
		this.contextRunner.withPropertyValues(POLICY + "count-responses=")
			.run((context) -> assertThat(problems(context)).containsExactly(POLICY + "count-responses: was [], "
					+ "must list at least one status or class of statuses, such as [401, 403] or [4xx, 5xx]; "
					+ "without count-responses every admitted request takes its cost"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "600", "099" })
	void aStatusOutsideTheRangeIsRefused(String status) {
		this.contextRunner
			.withPropertyValues(POLICY + "count-responses[0]=401", POLICY + "count-responses[1]=" + status)
			.run((context) -> assertThat(problems(context)).containsExactly(POLICY + "count-responses[1]: was '"
					+ status + "', must be a status from 100 to 599 (RFC 9110 section 15)"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "6xx", "0XX" })
	void aClassOutsideTheRangeIsRefused(String statusClass) {
		this.contextRunner.withPropertyValues(POLICY + "count-responses[0]=" + statusClass)
			.run((context) -> assertThat(problems(context)).containsExactly(POLICY + "count-responses[0]: was '"
					+ statusClass + "', must be a class of statuses from 1xx to 5xx (RFC 9110 section 15)"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "4x", "abc", "40x", "4xxx", "40", "x4x" })
	void anEntryThatIsNeitherIsRefused(String entry) {
		this.contextRunner.withPropertyValues(POLICY + "count-responses[0]=" + entry)
			.run((context) -> assertThat(problems(context)).containsExactly(POLICY + "count-responses[0]: was '"
					+ entry + "', must be a status (100 to 599) or a class of statuses (1xx to 5xx), such as 401 "
					+ "or 4xx (RFC 9110 section 15)"));
	}

	@Test
	void theCostFromAResponseHeader() {
		this.contextRunner.withPropertyValues(POLICY + "cost-from-response=header:X-Token-Usage")
			.run((context) -> assertThat(policy(context).afterResponse())
				.isEqualTo(new AfterResponse(null, new ResponseCostSource.Header("X-Token-Usage"), false)));
	}

	@Test
	void theCostHeaderMayBeHiddenFromTheClient() {
		this.contextRunner
			.withPropertyValues(POLICY + "cost-from-response=header:X-Token-Usage",
					POLICY + "hide-response-cost-header=true")
			.run((context) -> assertThat(policy(context).afterResponse().hideCostHeader()).isTrue());
	}

	@Test
	void theCostFromAJsonPointer() {
		this.contextRunner.withPropertyValues(POLICY + "cost-from-response=json:/usage/total_tokens")
			.run((context) -> assertThat(policy(context).afterResponse()).isEqualTo(new AfterResponse(null,
					new ResponseCostSource.Json(JsonPointer.parse("/usage/total_tokens")), false)));
	}

	@Test
	void thePolicysCostIsTheEstimateTakenOnAdmission() {
		this.contextRunner.withPropertyValues(POLICY + "cost-from-response=json:/usage/total_tokens", POLICY + "cost=3")
			.run((context) -> assertThat(policy(context).cost()).isEqualTo(3));
	}

	@Test
	void countedResponsesMayReportTheirCost() {
		this.contextRunner
			.withPropertyValues(POLICY + "count-responses=2xx", POLICY + "cost-from-response=header:X-Cost")
			.run((context) -> assertThat(policy(context).afterResponse()).isEqualTo(new AfterResponse(
					new CountedResponses(Set.of(), Set.of(2)), new ResponseCostSource.Header("X-Cost"), false)));
	}

	@Test
	void theCostFromTheApplicationsResolver() {
		this.contextRunner.withBean(ResponseCostResolver.class, () -> (policyId, status, headers, numbers) -> 1L)
			.withPropertyValues(POLICY + "cost-from-response=resolver")
			.run((context) -> assertThat(policy(context).afterResponse())
				.isEqualTo(new AfterResponse(null, new ResponseCostSource.Resolver(), false)));
	}

	@Test
	void theResolverWithoutABeanIsRefused() {
		this.contextRunner.withPropertyValues(POLICY + "cost-from-response=resolver")
			.run((context) -> assertThat(problems(context)).containsExactly(POLICY + "cost-from-response: was "
					+ "'resolver', needs a dev.ratelimit.web.ResponseCostResolver bean, and the application declares "
					+ "none: declare one, or read the cost with header:<Name> or json:<JSON Pointer>"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "header:", "header:X Token", "header:X-Token:" })
	void aHeaderThatIsNotAFieldNameIsRefused(String source) {
		this.contextRunner.withPropertyValues(POLICY + "cost-from-response=" + source)
			.run((context) -> assertThat(problems(context)).containsExactly(POLICY + "cost-from-response: was '"
					+ source + "', must name an HTTP header after 'header:' (a token, RFC 9110 section 5.1), for "
					+ "example header:X-Token-Usage"));
	}

	@Test
	void aJsonPointerWithoutItsLeadingSlashIsRefusedWithWhatRfc6901Says() {
		this.contextRunner.withPropertyValues(POLICY + "cost-from-response=json:usage/total_tokens")
			.run((context) -> assertThat(problems(context)).containsExactly(POLICY + "cost-from-response: was "
					+ "'json:usage/total_tokens', must have a JSON Pointer after 'json:', for example "
					+ "json:/usage/total_tokens: JSON pointer 'usage/total_tokens' does not start with '/' "
					+ "(RFC 6901 section 3)"));
	}

	@Test
	void aJsonPointerWithABadEscapeIsRefusedWithWhatRfc6901Says() {
		this.contextRunner.withPropertyValues(POLICY + "cost-from-response=json:/usage~2")
			.run((context) -> assertThat(problems(context)).containsExactly(POLICY + "cost-from-response: was "
					+ "'json:/usage~2', must have a JSON Pointer after 'json:', for example json:/usage/total_tokens: "
					+ "JSON pointer '/usage~2' has a '~' not followed by '0' or '1' (RFC 6901 section 3)"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "body", "Header:X-Cost", "resolvers", "/usage/total_tokens" })
	void anyOtherSourceIsRefusedWithTheThreeForms(String source) {
		this.contextRunner.withPropertyValues(POLICY + "cost-from-response=" + source)
			.run((context) -> assertThat(problems(context))
				.containsExactly(POLICY + "cost-from-response: was '" + source + "', " + COST_SOURCES));
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "json:/usage/total_tokens" })
	void hidingACostHeaderNeedsAHeaderSource(String source) {
		this.contextRunner.withPropertyValues(POLICY + "hide-response-cost-header=true")
			.withPropertyValues(
					source.isEmpty() ? new String[0] : new String[] { POLICY + "cost-from-response=" + source })
			.run((context) -> assertThat(problems(context)).containsExactly(POLICY + "hide-response-cost-header: "
					+ "was true, must not be set unless cost-from-response is header:<Name>: only the response header "
					+ "the cost is read from can be kept from the client"));
	}

	@Test
	void theHybridStoreCannotCountResponses() {
		this.contextRunner.withPropertyValues(POLICY + "count-responses=401", POLICY + "store=hybrid")
			.run((context) -> assertThat(problems(context))
				.contains(POLICY + "count-responses: was [401], " + NO_SETTLING));
	}

	@Test
	void theHybridStoreByDefaultCannotTakeTheCostFromTheResponse() {
		this.contextRunner.withPropertyValues(POLICY + "cost-from-response=header:X-Cost", "ratelimit.store=hybrid")
			.run((context) -> assertThat(problems(context))
				.contains(POLICY + "cost-from-response: was 'header:X-Cost', " + NO_SETTLING));
	}

	@Test
	void aPolicyCountingResponsesDoesNotShape() {
		this.contextRunner
			.withPropertyValues(POLICY + "count-responses=401", LIMIT + "algorithm=leaky-bucket", LIMIT + "limit=",
					LIMIT + "window=", LIMIT + "capacity=5", LIMIT + "drain-rate=1", LIMIT + "shaping.max-delay=2s")
			.run((context) -> assertThat(problems(context)).containsExactly(POLICY
					+ "tiers.anonymous[0].shaping: was count-responses, must not be set for a policy with "
					+ "count-responses, which takes a request's cost only after its response and so gives it no "
					+ "place in the schedule on admission"));
	}

	@Test
	void aMisspeltCountResponsesIsNamedWithTheKeyMeant() {
		this.contextRunner.withPropertyValues(POLICY + "count-response=401")
			.run((context) -> assertThat(problems(context)).containsExactly(
					POLICY + "count-response: was 401, is not a known key; did you mean count-responses?"));
	}

	@Test
	void aMisspeltCostFromResponseIsNamedWithTheKeyMeant() {
		this.contextRunner.withPropertyValues(POLICY + "cost-from-responses=header:X-Cost")
			.run((context) -> assertThat(problems(context)).containsExactly(POLICY
					+ "cost-from-responses: was header:X-Cost, is not a known key; did you mean cost-from-response?"));
	}

	@Test
	void aMisspeltHideResponseCostHeaderIsNamedWithTheKeyMeant() {
		this.contextRunner
			.withPropertyValues(POLICY + "cost-from-response=header:X-Cost", POLICY + "hide-response-cost-headers=true")
			.run((context) -> assertThat(problems(context)).containsExactly(POLICY + "hide-response-cost-headers: "
					+ "was true, is not a known key; did you mean hide-response-cost-header?"));
	}

	@Test
	void aHideResponseCostHeaderThatIsNotABooleanIsRefused() {
		this.contextRunner
			.withPropertyValues(POLICY + "cost-from-response=header:X-Cost", POLICY + "hide-response-cost-header=maybe")
			.run((context) -> assertThat(problems(context)).containsExactly(
					POLICY + "hide-response-cost-header: was maybe, must be true or false"));
	}

	@Test
	void aReloadToTheResolverWithoutABeanIsRejected() {
		this.contextRunner.run((context) -> {
			Reload reload = reload(context, "cost-from-response=resolver");
			assertThat(reload.outcome()).isEqualTo(Outcome.REJECTED);
			assertThat(reload.problems()).extracting(ConfigurationProblem::describe)
				.singleElement()
				.asString()
				.startsWith(POLICY + "cost-from-response: was 'resolver', needs a "
						+ "dev.ratelimit.web.ResponseCostResolver bean");
		});
	}

	@Test
	void aReloadToTheResolverWithABeanPutsItInForce() {
		this.contextRunner.withBean(ResponseCostResolver.class, () -> (policyId, status, headers, numbers) -> 1L)
			.run((context) -> {
				assertThat(reload(context, "cost-from-response=resolver").outcome()).isEqualTo(Outcome.ACCEPTED);
				assertThat(context.getBean(LivePolicies.class).get().policy("login").afterResponse().costFromResponse())
					.isEqualTo(new ResponseCostSource.Resolver());
			});
	}

	/**
	 * The reload of the policy's {@code setting} ({@code key=value}), as Spring Cloud's
	 * refresh announces it.
	 */
	private static Reload reload(AssertableApplicationContext context, String setting) {
		assertThat(context).hasNotFailed();
		TestPropertyValues.of(POLICY + setting).applyTo(context.getEnvironment());
		String key = POLICY + setting.substring(0, setting.indexOf('='));
		context.publishEvent(new EnvironmentChangeEvent(context, Set.of(key)));
		return context.getBean(PolicyReloads.class).last();
	}

	private static RateLimitPolicy policy(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		RateLimitPolicy policy = context.getBean(RateLimitPolicies.class).policy("login");
		assertThat(policy).isNotNull();
		return policy;
	}

}
