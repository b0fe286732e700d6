package dev.ratelimit.web;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.algorithm.CalendarPeriods;
import dev.ratelimit.algorithm.Concurrency;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Shaping;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.AfterResponse;
import dev.ratelimit.policy.CountedResponses;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.ResponseCostSource;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.web.SeveralPoliciesFixture.Sent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

import static dev.ratelimit.web.SeveralPoliciesFixture.policy;
import static dev.ratelimit.web.SeveralPoliciesFixture.shared;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * One route's judge of several policies: all or nothing (a request one policy refuses
 * takes nothing from the others, what those decided before it took given back
 * exactly), on stores that decide at once and stores that are awaited, with one set of
 * headers describing every policy, holds for the longest delay, each policy's settlement
 * after the response, and each policy telling its own listeners.
 */
class SeveralPoliciesRequestJudgeTests {

	private static final String CLIENT = "198.51.100.4";

	private static final String OTHER = "198.51.100.5";

	private final SeveralPoliciesFixture fixture = new SeveralPoliciesFixture();

	@AfterEach
	void realTime() {
		VirtualTimeScheduler.reset();
	}

	@Test
	void aRequestOnePolicyRefusesTakesNothingFromThePoliciesDecidedBeforeIt() {
		RateLimitPolicy shared = shared("shared", StoreType.CAFFEINE, tier(new FixedWindow(10, Duration.ofMinutes(1))));
		RateLimitPolicy perClient = policy("per-client", StoreType.CAFFEINE,
				tier(new FixedWindow(2, Duration.ofMinutes(1))));
		RequestJudge judge = this.fixture.judge(shared, perClient);
		assertThat(this.fixture.send(judge, CLIENT).forwarded).isTrue();
		assertThat(this.fixture.send(judge, CLIENT).forwarded).isTrue();
		this.fixture.told.clear();
		Sent refused = this.fixture.send(judge, CLIENT);
		assertThat(refused.forwarded).isFalse();
		assertThat(refused.status()).isEqualTo(429);
		assertThat(count(shared, SeveralPoliciesFixture.ROUTE)).isEqualTo(2);
		assertThat(count(perClient, CLIENT)).isEqualTo(2);
		// Only the policy that refused reports the request: the other gave back silently.
		assertThat(this.fixture.told).containsExactly("per-client rejected");
		assertThat(this.fixture.send(judge, OTHER).forwarded).isTrue();
		assertThat(count(shared, SeveralPoliciesFixture.ROUTE)).isEqualTo(3);
	}

	@Test
	void thePoliciesAfterTheOneThatRefusesAreNotAsked() {
		RateLimitPolicy perClient = policy("per-client", StoreType.CAFFEINE,
				tier(new FixedWindow(1, Duration.ofMinutes(1))));
		RateLimitPolicy shared = policy("shared", StoreType.REDIS, tier(new FixedWindow(10, Duration.ofMinutes(1))));
		RequestJudge judge = this.fixture.judge(perClient, shared);
		this.fixture.send(judge, CLIENT);
		this.fixture.told.clear();
		Sent refused = this.fixture.send(judge, CLIENT);
		assertThat(refused.status()).isEqualTo(429);
		assertThat(this.fixture.told).containsExactly("per-client rejected");
		assertThat(count(shared, CLIENT)).isEqualTo(1);
		assertThat(this.fixture.remote.settlements).isEmpty();
		// The headers describe the policy that refused, the only one asked.
		assertThat(Draft11Fields.of(refused.headers()).serviceLimits()).extracting(Draft11Fields.ServiceLimit::name)
			.containsExactly("per-client-anonymous-1");
	}

	static Stream<Arguments> limitsGivenBack() {
		Duration minute = Duration.ofMinutes(1);
		return Stream.of(new FixedWindow(5, minute), new SlidingWindowLog(5, minute), new SlidingWindowCounter(5, minute),
				new TokenBucket(5, 1, minute), new LeakyBucket(5, 1, minute), new Concurrency(5))
			.flatMap((limit) -> Stream.of(Arguments.of(limit, StoreType.CAFFEINE), Arguments.of(limit, StoreType.REDIS)));
	}

	@ParameterizedTest(name = "{0} on {1}")
	@MethodSource("limitsGivenBack")
	void whatAPolicyTookOfARequestALaterPolicyRefusedIsGivenBackExactly(Limit limit, StoreType store) {
		RateLimitPolicy first = policy("first", store, tier(limit));
		RateLimitPolicy refusing = policy("refusing", StoreType.CAFFEINE,
				tier(new FixedWindow(1, Duration.ofMinutes(1))));
		RequestJudge judge = this.fixture.judge(first, refusing);
		assertThat(this.fixture.send(judge, CLIENT).forwarded).isTrue();
		List<Map<String, Number>> admitted = this.fixture.state(first, CLIENT);
		Sent refused = this.fixture.send(judge, CLIENT);
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.completed).isTrue();
		assertThat(this.fixture.state(first, CLIENT)).isEqualTo(admitted);
		assertThat(this.fixture.told).containsExactlyElementsOf(limit.countsInFlight()
				? List.of("first allowed", "refusing allowed", "first taken", "first released", "refusing rejected")
				: List.of("first allowed", "refusing allowed", "refusing rejected"));
	}

	@Test
	void theHeadersOfSeveralPoliciesTellACalendarPeriodByTheStoresClock() {
		Instant now = Instant.ofEpochSecond(0, this.fixture.clock.nanoTime());
		ZonedDateTime february = now.atZone(ZoneOffset.UTC).toLocalDate().withDayOfMonth(10).withMonth(2)
			.atStartOfDay(ZoneOffset.UTC);
		if (!february.toInstant().isAfter(now)) {
			february = february.plusYears(1);
		}
		this.fixture.clock.advance(Duration.between(now, february.toInstant()));
		long februarySeconds = Duration.ofDays(february.toLocalDate().lengthOfMonth()).toSeconds();
		RateLimitPolicy monthly = policy("monthly", StoreType.CAFFEINE,
				tier(FixedWindow.inCalendar(100, CalendarPeriods.of(CalendarPeriods.Unit.MONTH, ZoneOffset.UTC))));
		RateLimitPolicy perMinute = policy("per-minute", StoreType.CAFFEINE,
				tier(new FixedWindow(10, Duration.ofMinutes(1))));
		Sent sent = this.fixture.send(this.fixture.judge(perMinute, monthly), CLIENT);
		assertThat(sent.headers().getFirst("RateLimit-Policy"))
			.contains("\"monthly-anonymous-1\";q=100;w=" + februarySeconds);
	}

	@Test
	void aRequestWhoseClientLeftWhileAPolicyDecidedHasEveryPolicyGiveBack() {
		RateLimitPolicy local = policy("local", StoreType.CAFFEINE,
				tier(new FixedWindow(10, Duration.ofMinutes(1)), new Concurrency(1)));
		RateLimitPolicy remote = policy("remote", StoreType.REDIS,
				tier(new FixedWindow(10, Duration.ofMinutes(1)), new Concurrency(1)));
		RequestJudge judge = this.fixture.judge(local, remote);
		Sinks.Empty<Void> answer = Sinks.empty();
		this.fixture.remote.answerWhen = answer.asMono();
		Sent left = this.fixture.send(judge, CLIENT);
		assertThat(count(local, CLIENT)).isOne();
		left.subscription.dispose();
		assertThat(count(local, CLIENT)).as("given back at once").isZero();
		assertThat(count(remote, CLIENT)).as("taken by the store, its answer still to come").isOne();
		answer.tryEmitEmpty();
		assertThat(left.forwarded).isFalse();
		assertThat(count(remote, CLIENT)).isZero();
		assertThat(this.fixture.state(local, CLIENT).get(1).get("inFlight").longValue()).isZero();
		assertThat(this.fixture.state(remote, CLIENT).get(1).get("inFlight").longValue()).isZero();
		assertThat(this.fixture.remote.settlements).singleElement().matches(Settlement::ended);
		assertThat(this.fixture.told).containsExactly("local taken", "local released", "local refunded:1",
				"remote taken", "remote released", "remote refunded:1");
	}

	@Test
	void policiesOnAStoreThatDecidesAtOnceAndOnOneThatIsAwaitedJudgeTogether() {
		RateLimitPolicy remote = policy("remote", StoreType.REDIS, tier(new FixedWindow(10, Duration.ofMinutes(1))));
		RateLimitPolicy local = policy("local", StoreType.CAFFEINE, tier(new FixedWindow(2, Duration.ofMinutes(1))));
		RequestJudge judge = this.fixture.judge(remote, local);
		Sent first = this.fixture.send(judge, CLIENT);
		assertThat(first.forwarded).isTrue();
		assertThat(first.headers().getFirst("RateLimit"))
			.isEqualTo("\"local-anonymous-1\";r=1;t=30, \"remote-anonymous-1\";r=9;t=30");
		this.fixture.send(judge, CLIENT);
		Sent refused = this.fixture.send(judge, CLIENT);
		assertThat(refused.status()).isEqualTo(429);
		assertThat(this.fixture.remote.settlements).hasSize(1);
		assertThat(this.fixture.remote.settlements.get(0).units()).isEqualTo(-1);
		assertThat(count(remote, CLIENT)).isEqualTo(2);
		// Given back before the refusal is answered: its headers describe the bucket as it is then.
		assertThat(refused.headers().getFirst("RateLimit"))
			.isEqualTo("\"local-anonymous-1\";r=0;t=30, \"remote-anonymous-1\";r=8;t=30");
	}

	@Test
	void draft11ListsEveryLimitOfEveryPolicyTheLeastRemainingFirstAndTheRefusalNamesThePolicyThatRefused() {
		RateLimitPolicy shared = policy("shared", StoreType.CAFFEINE, new Tier("anonymous",
				List.of(new FixedWindow(10, Duration.ofMinutes(1)), new FixedWindow(100, Duration.ofDays(1))),
				Arrays.asList(null, "daily")));
		RateLimitPolicy perClient = policy("per-client", StoreType.CAFFEINE,
				tier(new FixedWindow(2, Duration.ofMinutes(1))));
		RequestJudge judge = this.fixture.judge(shared, perClient);
		HttpHeaders first = this.fixture.send(judge, CLIENT).headers();
		assertThat(first.getFirst("RateLimit-Policy")).isEqualTo(
				"\"shared-anonymous-1\";q=10;w=60, \"daily\";q=100;w=86400, \"per-client-anonymous-1\";q=2;w=60");
		Draft11Fields fields = Draft11Fields.of(first);
		assertThat(fields.serviceLimits()).extracting(Draft11Fields.ServiceLimit::name)
			.containsExactly("per-client-anonymous-1", "shared-anonymous-1", "daily");
		assertThat(fields.serviceLimits()).extracting(Draft11Fields.ServiceLimit::remaining).containsExactly(1L, 9L, 99L);
		this.fixture.send(judge, CLIENT);
		Sent refused = this.fixture.send(judge, CLIENT);
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.headers().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("30");
		assertThat(refused.headers().getFirst("RateLimit-Policy")).isEqualTo(first.getFirst("RateLimit-Policy"));
		assertThat(Draft11Fields.of(refused.headers()).serviceLimits()).extracting(Draft11Fields.ServiceLimit::remaining)
			.containsExactly(0L, 8L, 98L);
		RateLimitRejection rejection = this.fixture.rejections.get(0);
		assertThat(rejection.policyId()).isEqualTo("per-client");
		assertThat(rejection.violatedLimits()).containsExactly("per-client-anonymous-1");
		assertThat(rejection.retryAfterSeconds()).isEqualTo(30);
		String body = refused.exchange.getResponse().getBodyAsString().block();
		assertThat(JsonPath.<List<String>>read(body, "$.violated-policies")).containsExactly("per-client-anonymous-1");
		assertThat(JsonPath.<Integer>read(body, "$.retryAfter")).isEqualTo(30);
	}

	@Test
	void draft06DescribesTheLimitWithTheLeastRemainingOfEveryPolicy() {
		this.fixture.style = HeaderStyle.DRAFT_06;
		RateLimitPolicy perClient = policy("per-client", StoreType.CAFFEINE,
				tier(new FixedWindow(5, Duration.ofMinutes(1))));
		RateLimitPolicy shared = policy("shared", StoreType.REDIS, tier(new FixedWindow(3, Duration.ofSeconds(40))));
		RequestJudge judge = this.fixture.judge(perClient, shared);
		HttpHeaders first = this.fixture.send(judge, CLIENT).headers();
		assertThat(first.toSingleValueMap()).containsEntry("RateLimit-Limit", "3")
			.containsEntry("RateLimit-Remaining", "2")
			.containsEntry("RateLimit-Policy", "5;w=60, 3;w=40");
		assertThat(first.getFirst("RateLimit-Reset")).isNotNull();
		for (int i = 0; i < 3; i++) {
			this.fixture.send(judge, OTHER);
		}
		HttpHeaders refused = this.fixture.send(judge, OTHER).headers();
		// The shared limit refused: it is reported, its reset the Retry-After.
		assertThat(refused.getFirst("RateLimit-Limit")).isEqualTo("3");
		assertThat(refused.getFirst("RateLimit-Remaining")).isEqualTo("0");
		assertThat(refused.getFirst("RateLimit-Reset")).isEqualTo(refused.getFirst(HttpHeaders.RETRY_AFTER));
		assertThat(count(perClient, OTHER)).isEqualTo(3);
	}

	@Test
	void xRateLimitDescribesTheLimitWithTheLeastRemainingOfEveryPolicy() {
		this.fixture.style = HeaderStyle.X_RATELIMIT;
		RateLimitPolicy perClient = policy("per-client", StoreType.CAFFEINE,
				tier(new FixedWindow(2, Duration.ofMinutes(1))));
		RateLimitPolicy shared = policy("shared", StoreType.CAFFEINE, tier(new FixedWindow(5, Duration.ofMinutes(1))));
		HttpHeaders first = this.fixture.send(this.fixture.judge(shared, perClient), CLIENT).headers();
		assertThat(first.getFirst("X-RateLimit-Limit")).isEqualTo("2");
		assertThat(first.getFirst("X-RateLimit-Remaining")).isEqualTo("1");
	}

	@Test
	void aRequestOnePolicyRefusesBeforeDecidingTakesNothingFromAny() {
		RateLimitPolicy shared = policy("shared", StoreType.CAFFEINE, tier(new FixedWindow(10, Duration.ofMinutes(1))));
		Tier tenants = tier(new FixedWindow(10, Duration.ofMinutes(1)));
		RateLimitPolicy perTenant = new RateLimitPolicy("per-tenant", new KeySource.Header("X-Tenant"), false, 1,
				StoreType.CAFFEINE, Map.of(tenants.name(), tenants), tenants, OnMissingKey.REJECT, 403, null);
		Sent refused = this.fixture.send(this.fixture.judge(shared, perTenant), CLIENT);
		assertThat(refused.status()).isEqualTo(403);
		assertThat(this.fixture.state(shared, CLIENT)).isEmpty();
		assertThat(this.fixture.told).containsExactly("per-tenant missing-key");
	}

	@Test
	void aRequestThePoliciesHoldIsHeldForTheLongestHoldAndEachTellsItsOwn() {
		VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();
		RateLimitPolicy queue = policy("queue", StoreType.CAFFEINE,
				tier(new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(3)))));
		RateLimitPolicy tokens = policy("tokens", StoreType.CAFFEINE,
				tier(new TokenBucket(1, 1, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(3)))));
		RequestJudge judge = this.fixture.judge(queue, tokens);
		this.fixture.send(judge, CLIENT);
		this.fixture.told.clear();
		Sent held = this.fixture.send(judge, CLIENT);
		assertThat(this.fixture.told).containsExactly("queue delayed", "tokens delayed");
		advance(time, Duration.ofMillis(999));
		assertThat(held.forwarded).isFalse();
		advance(time, Duration.ofMillis(1));
		assertThat(held.forwarded).isTrue();
		assertThat(held.completed).isTrue();
		assertThat(this.fixture.held.held()).isZero();
	}

	@Test
	void aHoldGrantedThenARefusalGivesTheHoldBack() {
		VirtualTimeScheduler.getOrSet();
		RateLimitPolicy queue = policy("queue", StoreType.CAFFEINE,
				tier(new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(3)))));
		RateLimitPolicy once = policy("once", StoreType.CAFFEINE, tier(new FixedWindow(1, Duration.ofMinutes(1))));
		RequestJudge judge = this.fixture.judge(queue, once);
		this.fixture.send(judge, CLIENT);
		List<Map<String, Number>> queued = this.fixture.state(queue, CLIENT);
		Sent refused = this.fixture.send(judge, CLIENT);
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.completed).isTrue();
		assertThat(this.fixture.held.held()).isZero();
		assertThat(this.fixture.state(queue, CLIENT)).isEqualTo(queued);
	}

	@Test
	void aHeldRequestThatNeverGoesOnHasEveryPolicyGiveBack() {
		VirtualTimeScheduler.getOrSet();
		RateLimitPolicy queue = policy("queue", StoreType.CAFFEINE,
				tier(new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(3)))));
		RateLimitPolicy window = policy("window", StoreType.REDIS, tier(new FixedWindow(10, Duration.ofMinutes(1))));
		RequestJudge judge = this.fixture.judge(queue, window);
		this.fixture.send(judge, CLIENT);
		List<Map<String, Number>> queued = this.fixture.state(queue, CLIENT);
		Sent held = this.fixture.send(judge, CLIENT);
		assertThat(count(window, CLIENT)).isEqualTo(2);
		held.subscription.dispose();
		assertThat(this.fixture.held.held()).isZero();
		assertThat(this.fixture.state(queue, CLIENT)).isEqualTo(queued);
		assertThat(count(window, CLIENT)).isEqualTo(1);
		assertThat(this.fixture.told).containsSubsequence("queue delayed", "window allowed", "queue refunded:1",
				"window refunded:1");
	}

	@Test
	void aRequestHeldWhileThisNodeHoldsAsManyAsItMayHasEveryPolicyGiveBackAndReport() {
		VirtualTimeScheduler.getOrSet();
		this.fixture.held = new HeldRequests(1);
		RateLimitPolicy queue = policy("queue", StoreType.CAFFEINE,
				tier(new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(3)))));
		RateLimitPolicy window = policy("window", StoreType.CAFFEINE, tier(new FixedWindow(10, Duration.ofMinutes(1))));
		RequestJudge judge = this.fixture.judge(queue, window);
		this.fixture.send(judge, CLIENT);
		this.fixture.send(judge, CLIENT);
		this.fixture.told.clear();
		Sent full = this.fixture.send(judge, CLIENT);
		assertThat(full.status()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE.value());
		assertThat(this.fixture.rejections.get(0).policyId()).isEqualTo("queue");
		assertThat(count(window, CLIENT)).isEqualTo(2);
		assertThat(this.fixture.told).containsExactly("queue refunded:1", "queue holds-full", "window refunded:1",
				"window holds-full");
	}

	@Test
	void eachPolicySettlesItsOwnShareOfTheExchangeAndTheResponseTellsThemAll() {
		RateLimitPolicy failedLogins = byClientHeader("failed-logins", StoreType.CAFFEINE, 1,
				tier(new FixedWindow(3, Duration.ofDays(1))),
				new AfterResponse(new CountedResponses(Set.of(401), Set.of()), null, false));
		RateLimitPolicy perClient = byClientHeader("per-client", StoreType.REDIS, 1,
				tier(new FixedWindow(10, Duration.ofMinutes(1))), AfterResponse.NONE);
		RouterFunction<ServerResponse> routes = RouterFunctions.route()
			.GET("/login/ok", (request) -> ServerResponse.ok().build())
			.GET("/login/denied", (request) -> ServerResponse.status(HttpStatus.UNAUTHORIZED).build())
			.build();
		WebTestClient client = this.fixture.client(routes, failedLogins, perClient);
		HttpHeaders denied = client.get()
			.uri("/login/denied")
			.header("X-Client", CLIENT)
			.exchange()
			.expectStatus()
			.isUnauthorized()
			.expectBody()
			.returnResult()
			.getResponseHeaders();
		// Rewritten once the counted status was charged, the other policy as it was judged.
		assertThat(Draft11Fields.of(denied).serviceLimits()).extracting(Draft11Fields.ServiceLimit::remaining)
			.containsExactly(2L, 9L);
		client.get().uri("/login/ok").header("X-Client", CLIENT).exchange().expectStatus().isOk();
		assertThat(count(failedLogins, CLIENT)).isEqualTo(1);
		assertThat(count(perClient, CLIENT)).isEqualTo(2);
	}

	@Test
	void aSlotInFlightAndAReportedCostAreSettledOnOneExchange() {
		RateLimitPolicy slots = byClientHeader("slots", StoreType.CAFFEINE, 1, tier(new Concurrency(1)),
				AfterResponse.NONE);
		RateLimitPolicy tokens = byClientHeader("tokens", StoreType.REDIS, 5,
				tier(new FixedWindow(100, Duration.ofMinutes(1))),
				new AfterResponse(null, new ResponseCostSource.Header("X-Tokens"), false));
		RouterFunction<ServerResponse> routes = RouterFunctions.route()
			.GET("/tokens/{n}", (request) -> ServerResponse.ok().header("X-Tokens", request.pathVariable("n")).build())
			.build();
		WebTestClient client = this.fixture.client(routes, slots, tokens);
		client.get().uri("/tokens/2").header("X-Client", CLIENT).exchange().expectStatus().isOk();
		assertThat(this.fixture.state(slots, CLIENT).get(0).get("inFlight").longValue()).isZero();
		assertThat(count(tokens, CLIENT)).isEqualTo(2);
		assertThat(this.fixture.told).containsExactlyInAnyOrder("slots allowed", "tokens allowed", "slots taken",
				"tokens refunded:3", "slots released");
	}

	@Test
	void policiesThatCannotBeJudgedTogetherAreRefusedWhenTheRouteIsBuilt() {
		this.fixture.style = HeaderStyle.DRAFT_06;
		RateLimitPolicy perClient = policy("per-client", StoreType.CAFFEINE,
				tier(new FixedWindow(100, Duration.ofMinutes(1))));
		RateLimitPolicy shared = policy("shared", StoreType.CAFFEINE, tier(new FixedWindow(100, Duration.ofSeconds(1))));
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> this.fixture.judge(perClient, shared))
			.withMessageContaining("route 'both' policies: was [per-client, shared], must name policies whose limits "
					+ "differ in quota with ratelimit.headers=draft-06: ratelimit.policies.per-client.tiers.anonymous[0] "
					+ "and ratelimit.policies.shared.tiers.anonymous[0] both have a quota of 100");
	}

	private long count(RateLimitPolicy policy, String client) {
		return this.fixture.state(policy, client).get(0).get("count").longValue();
	}

	private void advance(VirtualTimeScheduler time, Duration duration) {
		this.fixture.clock.advance(duration);
		time.advanceTimeBy(duration);
	}

	private static RateLimitPolicy byClientHeader(String id, StoreType store, long cost, Tier tier,
			AfterResponse afterResponse) {
		return new RateLimitPolicy(id, new KeySource.Header("X-Client"), false, cost, store, Map.of(tier.name(), tier),
				tier, OnMissingKey.CLIENT_ADDRESS, 403, null, afterResponse);
	}

	private static Tier tier(Limit... limits) {
		return new Tier("anonymous", List.of(limits));
	}

}
