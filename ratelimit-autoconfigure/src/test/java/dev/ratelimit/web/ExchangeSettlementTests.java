package dev.ratelimit.web;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import dev.ratelimit.algorithm.Concurrency;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.policy.AfterResponse;
import dev.ratelimit.policy.CountedResponses;
import dev.ratelimit.policy.JsonPointer;
import dev.ratelimit.policy.ResponseCostSource;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.web.SettlementFixture.Sent;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The one settlement of an admitted request's exchange, through the plain WebFlux filter
 * in front of a router function, or through the judge alone in front of an upstream a
 * test completes, fails or cancels: counted statuses, costs in a header and in a JSON
 * body, slots in flight given back exactly once, and nothing at all for a plain policy.
 */
class ExchangeSettlementTests {

	private static final Tier WINDOW = new Tier("default", List.of(new FixedWindow(30, Duration.ofMinutes(1))));

	private static final Tier TOKENS = new Tier("default", List.of(new FixedWindow(100, Duration.ofMinutes(1))));

	private static final Tier TWO_IN_FLIGHT = new Tier("default", List.of(new Concurrency(2)));

	private static final AfterResponse COUNT_401 = new AfterResponse(
			new CountedResponses(Set.of(401), Set.of()), null, false);

	private static final RouterFunction<ServerResponse> LOGIN = RouterFunctions.route()
		.GET("/login/ok", (request) -> ServerResponse.ok().bodyValue("welcome"))
		.GET("/login/denied", (request) -> ServerResponse.status(HttpStatus.UNAUTHORIZED).build())
		.GET("/login/boom", (request) -> Mono.error(new IllegalStateException("upstream failed")))
		.build();

	private static final RouterFunction<ServerResponse> LLM = RouterFunctions.route()
		.GET("/tokens/{n}", (request) -> ServerResponse.ok().header("X-Tokens", request.pathVariable("n")).build())
		.GET("/json/{n}", (request) -> ServerResponse.ok()
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"id\":\"chat-1\",\"total_tokens\":" + request.pathVariable("n") + "}"))
		.GET("/text", (request) -> ServerResponse.ok().contentType(MediaType.TEXT_PLAIN).bodyValue("42"))
		.build();

	@Test
	void aCountingPolicyChargesOnlyTheCountedStatusesAndTheResponseTellsTheCharge() {
		SettlementFixture fixture = new SettlementFixture(WINDOW, COUNT_401);
		WebTestClient client = fixture.client(LOGIN);
		for (int i = 0; i < 5; i++) {
			get(client, "/login/ok").expectStatus().isOk();
		}
		assertThat(fixture.store.settlements).isEmpty();
		assertThat(fixture.store.checks).hasValue(5);
		assertThat(fixture.store.acquires).hasValue(0);
		get(client, "/login/denied").expectStatus().isUnauthorized().expectHeader().valueEquals("RateLimit-Remaining",
				"20");
		assertThat(fixture.used()).isEqualTo(10);
		assertThat(fixture.settled).containsExactly("charged:10");
		get(client, "/login/denied").expectStatus().isUnauthorized();
		get(client, "/login/denied").expectStatus()
			.isUnauthorized()
			.expectHeader()
			.valueEquals("RateLimit-Remaining", "0");
		assertThat(fixture.used()).isEqualTo(30);
		// Exhausted: even a request that would succeed is refused.
		get(client, "/login/ok").expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(fixture.store.settlements).extracting(Settlement::units).containsExactly(10L, 10L, 10L);
		assertThat(fixture.store.settlements).noneMatch(Settlement::ended);
	}

	@Test
	void aResponseAnErrorHandlerWritesAfterTheChainFailedIsCounted() {
		SettlementFixture fixture = new SettlementFixture(WINDOW,
				new AfterResponse(new CountedResponses(Set.of(), Set.of(5)), null, false));
		WebTestClient client = fixture.client(LOGIN);
		get(client, "/login/boom").expectStatus().isEqualTo(HttpStatus.INTERNAL_SERVER_ERROR);
		get(client, "/login/denied").expectStatus().isUnauthorized();
		assertThat(fixture.used()).isEqualTo(10);
		assertThat(fixture.settled).containsExactly("charged:10");
	}

	@Test
	void aCostInAHeaderReplacesTheEstimateIsHiddenAndAMalformedOneLeavesTheEstimate() {
		SettlementFixture fixture = new SettlementFixture(TOKENS,
				new AfterResponse(null, new ResponseCostSource.Header("X-Tokens"), true));
		WebTestClient client = fixture.client(LLM);
		get(client, "/tokens/3").expectStatus()
			.isOk()
			.expectHeader()
			.doesNotExist("X-Tokens")
			.expectHeader()
			.valueEquals("RateLimit-Remaining", "97");
		assertThat(fixture.used()).isEqualTo(3);
		get(client, "/tokens/50").expectHeader().valueEquals("RateLimit-Remaining", "47");
		assertThat(fixture.used()).isEqualTo(53);
		get(client, "/tokens/many").expectStatus().isOk().expectHeader().doesNotExist("X-Tokens");
		assertThat(fixture.used()).isEqualTo(63);
		assertThat(fixture.store.settlements).extracting(Settlement::units).containsExactly(-7L, 40L);
		assertThat(fixture.settled).containsExactly("refunded:7", "charged:40", "unreadable:header-malformed");
	}

	@Test
	void aCostInAJsonBodyReplacesTheEstimateOnceTheBodyHasPassedUnchanged() {
		SettlementFixture fixture = new SettlementFixture(TOKENS,
				new AfterResponse(null, new ResponseCostSource.Json(JsonPointer.parse("/total_tokens")), false));
		WebTestClient client = fixture.client(LLM);
		// Its headers were sent before the body: they tell the quota with the estimate.
		get(client, "/json/42").expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Remaining", "90")
			.expectBody(String.class)
			.isEqualTo("{\"id\":\"chat-1\",\"total_tokens\":42}");
		assertThat(fixture.used()).isEqualTo(42);
		get(client, "/json/2.5").expectStatus().isOk();
		assertThat(fixture.used()).isEqualTo(45);
		get(client, "/text").expectStatus().isOk().expectBody(String.class).isEqualTo("42");
		assertThat(fixture.used()).isEqualTo(55);
		assertThat(fixture.settled).containsExactly("charged:32", "refunded:7", "unreadable:media-type");
	}

	@Test
	void aSlotInFlightIsGivenBackOnceWhenTheExchangeCompletes() {
		SettlementFixture fixture = new SettlementFixture(TWO_IN_FLIGHT, AfterResponse.NONE);
		Sent sent = fixture.send(fixture.filterJudge(), (exchange) -> Mono.empty());
		assertThat(sent.completed).isTrue();
		assertThat(fixture.store.settlements).containsExactly(new Settlement(0,
				fixture.store.settlements.get(0).admittedNanosAgo(), true, false));
		assertThat(fixture.inFlight()).isZero();
		assertThat(fixture.settled).containsExactly("taken", "released");
	}

	@Test
	void aSlotInFlightIsGivenBackOnceWhenTheUpstreamFails() {
		SettlementFixture fixture = new SettlementFixture(TWO_IN_FLIGHT, AfterResponse.NONE);
		Sent sent = fixture.send(fixture.filterJudge(), (exchange) -> Mono.error(new IllegalStateException("reset")));
		assertThat(sent.failed).isTrue();
		assertThat(fixture.store.settlements).hasSize(1).allMatch(Settlement::ended);
		assertThat(fixture.inFlight()).isZero();
		assertThat(fixture.settled).containsExactly("taken", "released");
	}

	@Test
	void aSlotInFlightIsHeldUntilItsClientCancelsThenGivenBackOnce() {
		SettlementFixture fixture = new SettlementFixture(TWO_IN_FLIGHT, AfterResponse.NONE);
		RequestJudge judge = fixture.filterJudge();
		Sent first = fixture.send(judge, (exchange) -> Mono.never());
		Sent second = fixture.send(judge, (exchange) -> Mono.never());
		Sent third = fixture.send(judge, (exchange) -> Mono.never());
		assertThat(third.forwarded).isFalse();
		assertThat(third.exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(fixture.inFlight()).isEqualTo(2);
		assertThat(fixture.store.settlements).isEmpty();
		first.subscription.dispose();
		first.subscription.dispose();
		assertThat(fixture.store.settlements).hasSize(1).allMatch(Settlement::ended);
		assertThat(fixture.inFlight()).isEqualTo(1);
		Sent fourth = fixture.send(judge, (exchange) -> Mono.empty());
		assertThat(fourth.completed).isTrue();
		second.subscription.dispose();
		assertThat(fixture.inFlight()).isZero();
		assertThat(fixture.store.settlements).hasSize(3);
		assertThat(fixture.settled).containsExactly("taken", "taken", "released", "taken", "released", "released");
	}

	@Test
	void aCountedRequestCancelledBeforeItsResponseChargesNothingAndGivesItsSlotBack() {
		Tier tier = new Tier("default",
				List.of(new FixedWindow(30, Duration.ofMinutes(1)), new Concurrency(1)));
		SettlementFixture fixture = new SettlementFixture(tier, COUNT_401);
		Sent sent = fixture.send(fixture.filterJudge(), (exchange) -> Mono.never());
		sent.subscription.dispose();
		assertThat(fixture.store.settlements).extracting(Settlement::units).containsExactly(0L);
		assertThat(fixture.store.settlements).allMatch(Settlement::ended);
		assertThat(fixture.used()).isZero();
		assertThat(fixture.inFlight()).isZero();
	}

	@Test
	void aDecisionAnsweredAfterItsClientLeftGivesBackWhatItTookAndItsSlot() {
		Tier tier = new Tier("default",
				List.of(new FixedWindow(30, Duration.ofMinutes(1)), new Concurrency(1)));
		SettlementFixture fixture = new SettlementFixture(tier, AfterResponse.NONE);
		Sinks.Empty<Void> answer = Sinks.empty();
		fixture.store.answerWhen = answer.asMono();
		Sent sent = fixture.send(fixture.filterJudge(), (exchange) -> Mono.never());
		sent.subscription.dispose();
		answer.tryEmitEmpty();
		assertThat(sent.forwarded).isFalse();
		assertThat(fixture.store.acquires).hasValue(1);
		assertThat(fixture.store.settlements).singleElement()
			.satisfies((settlement) -> assertThat(settlement.units()).isEqualTo(-10))
			.matches(Settlement::ended);
		assertThat(fixture.used()).isZero();
		assertThat(fixture.inFlight()).isZero();
		assertThat(fixture.settled).containsExactly("taken", "released", "refunded:10");
	}

	@Test
	void aDecisionAnsweredWhileItsClientWaitsIsForwardedAndSettledOnce() {
		Tier tier = new Tier("default",
				List.of(new FixedWindow(30, Duration.ofMinutes(1)), new Concurrency(1)));
		SettlementFixture fixture = new SettlementFixture(tier, AfterResponse.NONE);
		Sinks.Empty<Void> answer = Sinks.empty();
		fixture.store.answerWhen = answer.asMono();
		Sent sent = fixture.send(fixture.filterJudge(), (exchange) -> Mono.empty());
		assertThat(sent.forwarded).isFalse();
		answer.tryEmitEmpty();
		assertThat(sent.forwarded).isTrue();
		assertThat(sent.completed).isTrue();
		assertThat(fixture.used()).isEqualTo(10);
		assertThat(fixture.inFlight()).isZero();
		assertThat(fixture.store.settlements).singleElement().matches(Settlement::ended);
	}

	@Test
	void aPlainPolicysRequestsAreForwardedAsTheyCameAndNeverSettled() {
		SettlementFixture fixture = new SettlementFixture(WINDOW, AfterResponse.NONE);
		fixture.cost = 1;
		RequestJudge judge = fixture.filterJudge();
		assertThat(judge.settlesAfterResponse()).isFalse();
		Sent sent = fixture.send(judge, (exchange) -> Mono.empty());
		assertThat(sent.completed).isTrue();
		assertThat(sent.forwardedExchange).isSameAs(sent.exchange);
		get(fixture.client(LOGIN), "/login/denied").expectStatus().isUnauthorized();
		assertThat(fixture.store.acquires).hasValue(2);
		assertThat(fixture.store.checks).hasValue(0);
		assertThat(fixture.store.settlements).isEmpty();
		assertThat(fixture.settled).isEmpty();
	}

	@Test
	void aShadowCountingPolicyLetsAnExhaustedClientThroughAndChargesOnlyWhatItAdmitted() {
		SettlementFixture fixture = new SettlementFixture(WINDOW, COUNT_401);
		fixture.shadow = true;
		fixture.cost = 30;
		WebTestClient client = fixture.client(LOGIN);
		get(client, "/login/denied").expectStatus().isUnauthorized();
		get(client, "/login/denied").expectStatus().isUnauthorized().expectHeader().valueEquals("RateLimit-Remaining",
				"0");
		assertThat(fixture.used()).isEqualTo(30);
		assertThat(fixture.settled).containsExactly("charged:30");
	}

	@Test
	void aRateLimiterBeanRefusesAPolicySettledAfterTheResponse() {
		SettlementFixture fixture = new SettlementFixture(WINDOW, COUNT_401);
		RequestJudges judges = fixture.judges();
		assertThatIllegalStateException()
			.isThrownBy(() -> judges.forKeys(judges.policies(), judges.policies().policy("llm"), "login-route"))
			.withMessageContaining("policy 'llm'")
			.withMessageContaining("use the RateLimit filter on route 'login-route'");
		SettlementFixture inFlight = new SettlementFixture(TWO_IN_FLIGHT, AfterResponse.NONE);
		assertThat(RequestJudges.judgesKeys(inFlight.policy())).isFalse();
		assertThat(RequestJudges.judgesKeys(new SettlementFixture(WINDOW, AfterResponse.NONE).policy())).isTrue();
	}

	@Test
	void aBodysNumberIsWholeUnitsRoundedUpAndAHeadersAWholeNumber() {
		assertThat(ExchangeSettlement.units(2.5)).isEqualTo(3);
		assertThat(ExchangeSettlement.units(7L)).isEqualTo(7);
		assertThat(ExchangeSettlement.units(-1.0)).isEqualTo(-1);
		assertThat(ExchangeSettlement.units(Double.NaN)).isEqualTo(-1);
		assertThat(ExchangeSettlement.wholeNumber(" 12 ")).isEqualTo(12);
		assertThat(ExchangeSettlement.wholeNumber("-3")).isEqualTo(-1);
		assertThat(ExchangeSettlement.wholeNumber("1.5")).isEqualTo(-1);
	}

	private static WebTestClient.ResponseSpec get(WebTestClient client, String path) {
		return client.get().uri(path).header("X-Client", SettlementFixture.CLIENT).exchange();
	}

}
