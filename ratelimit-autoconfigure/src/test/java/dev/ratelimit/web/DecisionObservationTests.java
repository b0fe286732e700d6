package dev.ratelimit.web;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Shaping;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import io.micrometer.observation.Observation;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;
import reactor.util.context.Context;

import static dev.ratelimit.web.SeveralPoliciesFixture.policy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each policy's decision observed as {@code ratelimit.policy.decisions}: started before
 * the store is asked, stopped with its verdict's outcome, tagged by policy, tier and
 * store, a child of the request's observation, for stores that decide at once and
 * stores that are awaited alike.
 */
class DecisionObservationTests {

	private static final String NAME = DefaultRateLimitDecisionObservationConvention.NAME;

	private static final String CLIENT = "198.51.100.4";

	private final SeveralPoliciesFixture fixture = new SeveralPoliciesFixture();

	private final TestObservationRegistry registry = TestObservationRegistry.create();

	DecisionObservationTests() {
		this.fixture.observations = this.registry;
	}

	@AfterEach
	void realTime() {
		VirtualTimeScheduler.reset();
	}

	@Test
	void anAdmittedRequestIsObservedAsAllowedWithItsPolicyTierAndStore() {
		RequestJudge judge = this.fixture.judge(policy("orders", StoreType.CAFFEINE, tier(fixedWindow(2))));
		assertThat(this.fixture.send(judge, CLIENT).forwarded).isTrue();
		TestObservationRegistryAssert.assertThat(this.registry)
			.hasNumberOfObservationsWithNameEqualTo(NAME, 1)
			.hasObservationWithNameEqualTo(NAME)
			.that()
			.hasBeenStarted()
			.hasBeenStopped()
			.hasContextualNameEqualTo("ratelimit orders")
			.hasLowCardinalityKeyValue("policy", "orders")
			.hasLowCardinalityKeyValue("tier", "anonymous")
			.hasLowCardinalityKeyValue("store", "caffeine")
			.hasLowCardinalityKeyValue("outcome", "allowed")
			.doesNotHaveParentObservation();
	}

	@Test
	void aRefusedRequestIsObservedAsRejectedAndTheClientsKeyIsNeverAKeyValue() {
		RequestJudge judge = this.fixture.judge(policy("orders", StoreType.CAFFEINE, tier(fixedWindow(1))));
		this.fixture.send(judge, CLIENT);
		assertThat(this.fixture.send(judge, CLIENT).status()).isEqualTo(429);
		assertThat(outcomes()).containsExactly("allowed", "rejected");
		TestObservationRegistryAssert.assertThat(this.registry)
			.forAllObservationsWithNameEqualTo(NAME, (observation) -> observation.hasKeyValuesCount(4)
				.doesNotHaveHighCardinalityKeyValueWithKey("key"));
		assertThat(decisionContexts()).hasSize(2)
			.allSatisfy((context) -> assertThat(context.getAllKeyValues())
				.noneSatisfy((keyValue) -> assertThat(keyValue.getValue()).contains(CLIENT)));
	}

	@Test
	void aStoreThatFailsIsObservedAsAnErrorOnceItsFailureModeDecided() {
		this.fixture.remote.answerWhen = Mono.error(new IllegalStateException("Redis is down"));
		RequestJudge judge = this.fixture.judge(policy("orders", StoreType.REDIS, tier(fixedWindow(1))));
		assertThat(this.fixture.send(judge, CLIENT).forwarded).isTrue();
		TestObservationRegistryAssert.assertThat(this.registry)
			.hasObservationWithNameEqualTo(NAME)
			.that()
			.hasBeenStopped()
			.hasLowCardinalityKeyValue("store", "redis")
			.hasLowCardinalityKeyValue("outcome", "error");
	}

	@Test
	void eachPolicyOfARouteIsObservedOnItsOwnStoreUntilOneRefuses() {
		RateLimitPolicy local = policy("local", StoreType.CAFFEINE, tier(fixedWindow(5)));
		RateLimitPolicy global = policy("global", StoreType.REDIS, tier(fixedWindow(1)));
		RequestJudge judge = this.fixture.judge(local, global);
		assertThat(this.fixture.send(judge, CLIENT).forwarded).isTrue();
		assertThat(this.fixture.send(judge, CLIENT).status()).isEqualTo(429);
		assertThat(decisions()).containsExactly("local caffeine allowed", "global redis allowed",
				"local caffeine allowed", "global redis rejected");
	}

	@Test
	void aRequestAShapingLimitHoldsIsObservedAsDelayedWhenTheStoreAnswers() {
		VirtualTimeScheduler.getOrSet();
		RequestJudge judge = this.fixture
			.judge(policy("paced", StoreType.CAFFEINE, tier(new TokenBucket(1, 1, Duration.ofSeconds(1),
					new Shaping(Duration.ofSeconds(3))))));
		this.fixture.send(judge, CLIENT);
		SeveralPoliciesFixture.Sent held = this.fixture.send(judge, CLIENT);
		assertThat(held.forwarded).isFalse();
		assertThat(outcomes()).containsExactly("allowed", "delayed");
	}

	@Test
	void theDecisionIsAChildOfTheRequestsObservationForStoresDecidingAtOnceOrAwaited() {
		Observation request = Observation.start("http.server.requests", this.registry);
		RequestJudge judge = this.fixture.judge(policy("local", StoreType.CAFFEINE, tier(fixedWindow(5))),
				policy("global", StoreType.REDIS, tier(fixedWindow(5))));
		assertThat(this.fixture.send(judge, CLIENT, Context.of(ObservationThreadLocalAccessor.KEY, request)).forwarded)
			.isTrue();
		request.stop();
		TestObservationRegistryAssert.assertThat(this.registry)
			.hasNumberOfObservationsWithNameEqualTo(NAME, 2)
			.forAllObservationsWithNameEqualTo(NAME, (observation) -> observation.hasParentObservationEqualTo(request));
	}

	@Test
	void aRateLimiterBeansDecisionIsObservedAsAChildOfItsCallersObservation() {
		Observation filter = Observation.start("http.server.requests", this.registry);
		RequestJudges judges = this.fixture.judges(policy("keys", StoreType.REDIS, tier(fixedWindow(1))));
		RequestJudge judge = judges.forKeys(judges.policies(), judges.policies().policy("keys"), "route");
		for (int i = 0; i < 2; i++) {
			judge.judge("tenant", (allowed, headers) -> allowed)
				.contextWrite(Context.of(ObservationThreadLocalAccessor.KEY, filter))
				.block();
		}
		filter.stop();
		assertThat(outcomes()).containsExactly("allowed", "rejected");
		TestObservationRegistryAssert.assertThat(this.registry)
			.forAllObservationsWithNameEqualTo(NAME, (observation) -> observation.hasParentObservationEqualTo(filter)
				.hasLowCardinalityKeyValue("store", "redis"));
	}

	private List<String> outcomes() {
		return decisionContexts().stream().map((context) -> context.getOutcome().tagValue()).toList();
	}

	private List<String> decisions() {
		return decisionContexts().stream()
			.map((context) -> context.getPolicy() + " " + context.getStore() + " " + context.getOutcome().tagValue())
			.toList();
	}

	/**
	 * The contexts of the decisions observed, in the order they started.
	 */
	private List<RateLimitDecisionObservationContext> decisionContexts() {
		List<RateLimitDecisionObservationContext> decisions = new ArrayList<>();
		TestObservationRegistryAssert.assertThat(this.registry).hasHandledContextsThatSatisfy((contexts) -> {
			for (Observation.Context context : contexts) {
				if (context instanceof RateLimitDecisionObservationContext decision) {
					decisions.add(decision);
				}
			}
		});
		return decisions;
	}

	private static Limit fixedWindow(long limit) {
		return new FixedWindow(limit, Duration.ofMinutes(1));
	}

	private static Tier tier(Limit limit) {
		return new Tier("anonymous", List.of(limit));
	}

}
