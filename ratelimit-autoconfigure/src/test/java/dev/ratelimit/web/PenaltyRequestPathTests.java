package dev.ratelimit.web;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Penalty;
import dev.ratelimit.policy.AfterResponse;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.support.ManualClock;
import dev.ratelimit.testsupport.DecideOnlyStore;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.server.ServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The request path under a penalty box, on a clock moved by hand: the breach's 429 says
 * what its limits say and waits for the block; a blocked request's 429 carries
 * {@code Retry-After} the time left and no rate limit headers, and never reaches the
 * upstream; listeners hear {@code blocked} and each block started; a shadow policy never
 * blocks; a {@code RateLimiter} bean is blocked alike.
 */
class PenaltyRequestPathTests {

	private static final URI TYPE = URI.create("https://iana.org/assignments/http-problem-types#quota-exceeded");

	/**
	 * Two a second: room again a second after a breach, long before its minute's block
	 * ends.
	 */
	private static final Tier ANONYMOUS = new Tier("anonymous", List.of(new FixedWindow(2, Duration.ofSeconds(1))),
			List.of("per-second"));

	private static final Penalty PENALTY = new Penalty(
			List.of(Duration.ofMinutes(1), Duration.ofMinutes(10)), Duration.ofDays(1));

	private final ManualClock clock = new ManualClock();

	private final CaffeineBucketStore store = new CaffeineBucketStore(this.clock, 1000);

	private final List<ServerWebExchange> forwarded = new ArrayList<>();

	private final List<Outcome> outcomes = new ArrayList<>();

	private final List<Integer> blocksStarted = new ArrayList<>();

	private final List<RateLimitRejection> rejections = new ArrayList<>();

	@Test
	void theBreachIsRefusedByItsLimitsAndWaitsForItsBlock() {
		RequestJudge judge = judge(false);
		this.clock.advanceToMultipleOf(Duration.ofMinutes(1));
		long start = this.clock.nanoTime() / 1_000_000_000L;
		run(judge);
		run(judge);
		MockServerWebExchange breach = run(judge);
		HttpHeaders headers = breach.getResponse().getHeaders();
		assertThat(breach.getResponse().getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(headers.getFirst("Retry-After")).isEqualTo("60");
		assertThat(headers.getFirst("RateLimit-Remaining")).isEqualTo("0");
		assertThat(headers.getFirst("RateLimit-Reset")).isEqualTo("1");
		String body = breach.getResponse().getBodyAsString().block();
		assertThat(JsonPath.<String>read(body, "$.detail")).isEqualTo("You have exceeded the rate limit of 2 requests "
				+ "per second. You are blocked until " + Instant.ofEpochSecond(start + 60) + ".");
		assertThat(JsonPath.<Integer>read(body, "$.retryAfter")).isEqualTo(60);
		assertThat(JsonPath.<List<String>>read(body, "$.violated-policies")).containsExactly("per-second");
		assertThat(this.rejections).last().satisfies((rejection) -> {
			assertThat(rejection.reason()).isEqualTo(RateLimitRejection.Reason.LIMIT_EXCEEDED);
			assertThat(rejection.retryAfterSeconds()).isEqualTo(60);
		});
		assertThat(this.outcomes).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED, Outcome.REJECTED);
		assertThat(this.blocksStarted).containsExactly(1);
	}

	@Test
	void aBlockedRequestGetsRetryAfterTheTimeLeftAndNoRateLimitHeadersEvenOnceItsBucketHasRoom() {
		RequestJudge judge = judge(false);
		this.clock.advanceToMultipleOf(Duration.ofMinutes(1));
		long start = this.clock.nanoTime() / 1_000_000_000L;
		run(judge);
		run(judge);
		run(judge);
		this.clock.advance(Duration.ofMillis(20_500));
		MockServerWebExchange blocked = run(judge);
		HttpHeaders headers = blocked.getResponse().getHeaders();
		assertThat(blocked.getResponse().getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		// 39.5 seconds left, in delay-seconds rounded up (RFC 9110 section 10.2.3).
		assertThat(headers.getFirst("Retry-After")).isEqualTo("40");
		assertThat(headers.headerNames()).noneMatch((name) -> name.toLowerCase().startsWith("ratelimit"));
		String body = blocked.getResponse().getBodyAsString().block();
		assertThat(JsonPath.<String>read(body, "$.type")).isEqualTo(TYPE.toString());
		assertThat(JsonPath.<String>read(body, "$.detail"))
			.isEqualTo("You are blocked until " + Instant.ofEpochSecond(start + 60) + " for exceeding a rate limit.");
		assertThat(JsonPath.<Integer>read(body, "$.retryAfter")).isEqualTo(40);
		assertThat(JsonPath.<List<String>>read(body, "$.violated-policies")).isEmpty();
		assertThat(this.rejections).last().satisfies((rejection) -> {
			assertThat(rejection.reason()).isEqualTo(RateLimitRejection.Reason.BLOCKED);
			assertThat(rejection.blocked()).isTrue();
			assertThat(rejection.violatedLimits()).isEmpty();
		});
		assertThat(this.forwarded).hasSize(2);
		assertThat(this.outcomes).endsWith(Outcome.BLOCKED);
		assertThat(this.blocksStarted).containsExactly(1);
		// Exactly at its end, its limits judge it again.
		this.clock.advance(Duration.ofMillis(39_500));
		assertThat(run(judge).getResponse().getStatusCode()).isNull();
		assertThat(this.forwarded).hasSize(3);
	}

	@Test
	void theNextBreachAfterABlockServesTheNextStep() {
		RequestJudge judge = judge(false);
		for (int i = 0; i < 3; i++) {
			run(judge);
		}
		this.clock.advance(Duration.ofMinutes(1));
		run(judge);
		run(judge);
		MockServerWebExchange second = run(judge);
		assertThat(second.getResponse().getHeaders().getFirst("Retry-After")).isEqualTo("600");
		assertThat(this.blocksStarted).containsExactly(1, 2);
	}

	@Test
	void aShadowPolicyNeverBlocks() {
		RequestJudge judge = judge(true);
		for (int i = 0; i < 6; i++) {
			assertThat(run(judge).getResponse().getStatusCode()).isNull();
		}
		assertThat(this.forwarded).hasSize(6);
		assertThat(this.outcomes).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED, Outcome.SHADOW_REJECTED,
				Outcome.SHADOW_REJECTED, Outcome.SHADOW_REJECTED, Outcome.SHADOW_REJECTED);
		assertThat(this.blocksStarted).isEmpty();
		assertThat(this.store.blocks(policy(true)).collectList().block()).isEmpty();
	}

	@Test
	void aRateLimiterBeanIsBlockedAlike() {
		RateLimitPolicies policies = policies(false);
		RequestJudge judge = judges(policies).forKeys(policies, policies.policy("logins"), "legacy");
		List<Boolean> allowed = new ArrayList<>();
		List<String> retryAfters = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			if (i == 3) {
				this.clock.advance(Duration.ofSeconds(2));
			}
			judge.judge("client", (admitted, headers) -> {
				allowed.add(admitted);
				retryAfters.add(headers.getFirst("Retry-After"));
				return admitted;
			}).block();
		}
		assertThat(allowed).containsExactly(true, true, false, false);
		assertThat(retryAfters).containsExactly(null, null, "60", "58");
		assertThat(this.outcomes).endsWith(Outcome.REJECTED, Outcome.BLOCKED);
	}

	@Test
	void aStoreThatKeepsNoBlocksRefusesThePolicy() {
		RateLimitPolicies policies = policies(false);
		BucketDecider decideOnly = new DecideOnlyStore("caffeine");
		RequestJudges judges = new RequestJudges(policies, new BucketStores(List.of(decideOnly), List.of()),
				List.of(), HeaderStyle.DRAFT_06, "X-API-Key", this::reject, null, null, RateLimitMessages.DEFAULTS,
				new HeldRequests(10));
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> judges.forRoute(policies, policies.policy("logins"), "route", null))
			.satisfies((ex) -> assertThat(ex.getProblems().get(0).describe())
				.startsWith("ratelimit.policies.logins.penalty: was store caffeine, must not be set for a policy on "
						+ "store caffeine, which keeps no penalty blocks"));
	}

	private MockServerWebExchange run(RequestJudge judge) {
		MockServerWebExchange exchange = MockServerWebExchange.from(
				MockServerHttpRequest.get("/login").remoteAddress(new InetSocketAddress("198.51.100.4", 40000)));
		judge.judge(exchange, this.forwarded, (forwarded, chained) -> {
			forwarded.add(chained);
			return Mono.empty();
		}).block(Duration.ofSeconds(10));
		return exchange;
	}

	private RequestJudge judge(boolean shadow) {
		RateLimitPolicies policies = policies(shadow);
		return judges(policies).forRoute(policies, policies.policy("logins"), "login-route", null);
	}

	private RequestJudges judges(RateLimitPolicies policies) {
		RateLimitListener listener = new RateLimitListener() {

			@Override
			public void onDecision(String policy, String tier, String routeId, String store, Outcome outcome,
					long decisionNanos) {
				PenaltyRequestPathTests.this.outcomes.add(outcome);
			}

			@Override
			public void onBlockStarted(String policy, String tier, String routeId, String store, int step) {
				PenaltyRequestPathTests.this.blocksStarted.add(step);
			}

		};
		return new RequestJudges(policies, new BucketStores(List.of(this.store), List.of(this.store)),
				List.of(listener), HeaderStyle.DRAFT_06, "X-API-Key", this::reject, null, null,
				RateLimitMessages.DEFAULTS, new HeldRequests(10));
	}

	private Mono<Void> reject(ServerWebExchange exchange, RateLimitRejection rejection) {
		this.rejections.add(rejection);
		return new RateLimitProblemWriter(ServerCodecConfigurer.create().getWriters(), TYPE).reject(exchange,
				rejection);
	}

	private static RateLimitPolicies policies(boolean shadow) {
		return new RateLimitPolicies(Map.of("logins", policy(shadow)), Map.of());
	}

	private static RateLimitPolicy policy(boolean shadow) {
		return new RateLimitPolicy("logins", new KeySource.ClientIp(), shadow, 1, StoreType.CAFFEINE,
				Map.of("anonymous", ANONYMOUS), ANONYMOUS, OnMissingKey.CLIENT_ADDRESS,
				RateLimitPolicy.DEFAULT_MISSING_KEY_STATUS, null, AfterResponse.NONE, PENALTY);
	}

}
