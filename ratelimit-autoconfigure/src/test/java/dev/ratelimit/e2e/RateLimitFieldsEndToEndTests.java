package dev.ratelimit.e2e;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.support.ManualClock;
import dev.ratelimit.web.Draft11Fields;
import dev.ratelimit.web.Draft11Fields.Policy;
import dev.ratelimit.web.Draft11Fields.ServiceLimit;
import dev.ratelimit.web.StructuredFieldParser;
import dev.ratelimit.web.StructuredFieldParser.Member;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient.ResponseSpec;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fields of both IETF drafts through a real gateway, with a clock moved by hand:
 * every field parses by the drafts' rules on every response, a 429's reset is its
 * {@code Retry-After}, and a client that waits exactly that long is admitted.
 */
class RateLimitFieldsEndToEndTests {

	private static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

	private static Upstream upstream;

	private static GatewayRunner draft06;

	private static GatewayRunner draft11;

	@BeforeAll
	static void startGateways() {
		upstream = Upstream.start();
		draft06 = GatewayRunner.start(properties("draft-06"));
		draft11 = GatewayRunner.start(properties("draft-11"));
	}

	@AfterAll
	static void stopGateways() {
		draft06.close();
		draft11.close();
		upstream.close();
	}

	static Stream<Arguments> algorithmsInEachStyle() {
		return Stream.of("draft-06", "draft-11")
			.flatMap((style) -> Stream.of("fixed", "log", "counter", "token", "leaky")
				.map((policy) -> Arguments.of(policy, style)));
	}

	@ParameterizedTest(name = "{0} in {1}")
	@MethodSource("algorithmsInEachStyle")
	void aRejectionsResetIsItsRetryAfterAndAClientWaitingThatLongIsAdmitted(String policy, String style) {
		GatewayRunner gateway = gateway(style);
		String client = UUID.randomUUID().toString();
		EntityExchangeResult<byte[]> response = get(gateway, "/" + policy + "/x", client);
		for (int sent = 1; response.getStatus() == HttpStatus.OK && sent < 10; sent++) {
			assertFieldsParse(style, response);
			response = get(gateway, "/" + policy + "/x", client);
		}
		assertThat(response.getStatus()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertFieldsParse(style, response);
		long retryAfter = Long.parseLong(response.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER));
		assertThat(retryAfter).isPositive();
		assertThat(reportedReset(style, response)).isEqualTo(retryAfter);
		assertThat(reportedRemaining(style, response)).isZero();
		String body = new String(response.getResponseBodyContent());
		assertThat(JsonPath.<String>read(body, "$.type")).isEqualTo(QUOTA_EXCEEDED);
		assertThat(JsonPath.<List<String>>read(body, "$['violated-policies']")).containsExactly(policy + "-anonymous-1");
		assertThat(JsonPath.<Integer>read(body, "$.retryAfter")).isEqualTo((int) retryAfter);

		gateway.bean(ManualClock.class).advance(Duration.ofSeconds(retryAfter));
		EntityExchangeResult<byte[]> retried = get(gateway, "/" + policy + "/x", client);
		assertThat(retried.getStatus()).isEqualTo(HttpStatus.OK);
		assertFieldsParse(style, retried);
	}

	@Test
	void draft06ReportsTheLimitWithTheLeastRemainingUntilTheDayRunsOut() {
		String client = startOfADay(draft06);
		sendOk(draft06, client, 8);
		draft06.bean(ManualClock.class).advance(Duration.ofMillis(2200));
		// 9 of 10 left in this 2s window, 21 of 30 left today: only 9 more pass.
		HttpHeaders headers = sendOk(draft06, client, 1).getResponseHeaders();
		assertThat(headers.getFirst("RateLimit-Limit")).isEqualTo("10");
		assertThat(headers.getFirst("RateLimit-Remaining")).isEqualTo("9");
		assertThat(headers.getFirst("RateLimit-Reset")).isEqualTo("2");
		assertThat(headers.getFirst("RateLimit-Policy")).isEqualTo("10;w=2, 30;w=86400");
		assertThat(headers.containsHeader("X-RateLimit-Policy")).isFalse();

		EntityExchangeResult<byte[]> rejected = spendTheDay(draft06, client);
		headers = rejected.getResponseHeaders();
		assertThat(headers.getFirst("RateLimit-Limit")).isEqualTo("30");
		assertThat(headers.getFirst("RateLimit-Remaining")).isEqualTo("0");
		assertThat(headers.getFirst("RateLimit-Reset")).isEqualTo("86394")
			.isEqualTo(headers.getFirst(HttpHeaders.RETRY_AFTER));
		assertThat(JsonPath.<List<String>>read(new String(rejected.getResponseBodyContent()), "$['violated-policies']"))
			.containsExactly("daily");
	}

	@Test
	void draft11ListsEveryLimitLeastRemainingFirst() {
		String client = startOfADay(draft11);
		sendOk(draft11, client, 8);
		draft11.bean(ManualClock.class).advance(Duration.ofMillis(2200));
		Draft11Fields fields = Draft11Fields.of(sendOk(draft11, client, 1).getResponseHeaders());
		assertThat(fields.policies()).containsExactly(new Policy("multi-anonymous-1", 10, 2),
				new Policy("daily", 30, 86400));
		assertThat(fields.serviceLimits()).containsExactly(new ServiceLimit("multi-anonymous-1", 9, 2),
				new ServiceLimit("daily", 21, 86398));

		EntityExchangeResult<byte[]> rejected = spendTheDay(draft11, client);
		fields = Draft11Fields.of(rejected.getResponseHeaders());
		// The day rejected; the 2s window, which consumed nothing, has 8 left.
		assertThat(fields.serviceLimits()).containsExactly(new ServiceLimit("daily", 0, 86394),
				new ServiceLimit("multi-anonymous-1", 8, 2));
		assertThat(rejected.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("86394");
		assertThat(JsonPath.<List<String>>read(new String(rejected.getResponseBodyContent()), "$['violated-policies']"))
			.containsExactly("daily");
	}

	@Test
	void aHeadRequestOverTheLimitGetsEveryHeaderAndNoBody() {
		for (GatewayRunner gateway : List.of(draft06, draft11)) {
			String client = UUID.randomUUID().toString();
			for (int i = 0; i < 3; i++) {
				head(gateway, client).expectStatus().isOk();
			}
			EntityExchangeResult<byte[]> rejected = head(gateway, client).expectStatus()
				.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
				.expectBody()
				.returnResult();
			HttpHeaders headers = rejected.getResponseHeaders();
			assertThat(headers.getFirst(HttpHeaders.RETRY_AFTER)).isNotNull();
			assertThat(headers.getFirst("RateLimit-Policy")).isNotNull();
			assertThat(headers.getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
			assertThat(rejected.getResponseBodyContent()).isNullOrEmpty();
		}
	}

	/**
	 * With 9 of today's 30 spent in the window starting at 2s: 10 per window until the
	 * day has none left, at 6s; the next request is rejected by the day.
	 */
	private static EntityExchangeResult<byte[]> spendTheDay(GatewayRunner gateway, String client) {
		sendOk(gateway, client, 9);
		gateway.bean(ManualClock.class).advance(Duration.ofMillis(1800));
		sendOk(gateway, client, 10);
		gateway.bean(ManualClock.class).advance(Duration.ofSeconds(2));
		sendOk(gateway, client, 2);
		EntityExchangeResult<byte[]> rejected = get(gateway, "/multi/x", client);
		assertThat(rejected.getStatus()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		return rejected;
	}

	private static String startOfADay(GatewayRunner gateway) {
		gateway.bean(ManualClock.class).advanceToMultipleOf(Duration.ofDays(1));
		return UUID.randomUUID().toString();
	}

	private static EntityExchangeResult<byte[]> sendOk(GatewayRunner gateway, String client, int count) {
		EntityExchangeResult<byte[]> response = null;
		for (int i = 0; i < count; i++) {
			response = get(gateway, "/multi/x", client);
			assertThat(response.getStatus()).as("request %d", i + 1).isEqualTo(HttpStatus.OK);
		}
		return response;
	}

	/**
	 * Every field of the style parses as the draft defines it.
	 */
	private static void assertFieldsParse(String style, EntityExchangeResult<byte[]> response) {
		HttpHeaders headers = response.getResponseHeaders();
		if (style.equals("draft-11")) {
			Draft11Fields.of(headers);
			return;
		}
		// draft-06 sections 3.1, 3.3 and 3.4: an Integer Item without parameters;
		// section 3.2: a List of Integer Items with a w parameter.
		for (String name : List.of("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")) {
			List<Member> item = StructuredFieldParser.parseList(headers.get(name));
			assertThat(item).as(name).hasSize(1);
			assertThat(item.get(0).value()).as(name).isInstanceOf(Long.class);
			assertThat((Long) item.get(0).value()).as(name).isNotNegative();
			assertThat(item.get(0).parameters()).as(name).isEmpty();
		}
		for (Member policy : StructuredFieldParser.parseList(headers.get("RateLimit-Policy"))) {
			assertThat(policy.value()).isInstanceOf(Long.class);
			assertThat(policy.parameters()).containsOnlyKeys("w");
			assertThat((Long) policy.parameters().get("w")).isPositive();
		}
	}

	private static long reportedReset(String style, EntityExchangeResult<byte[]> response) {
		if (style.equals("draft-11")) {
			return Draft11Fields.of(response.getResponseHeaders()).serviceLimits().get(0).resetSeconds();
		}
		return Long.parseLong(response.getResponseHeaders().getFirst("RateLimit-Reset"));
	}

	private static long reportedRemaining(String style, EntityExchangeResult<byte[]> response) {
		if (style.equals("draft-11")) {
			return Draft11Fields.of(response.getResponseHeaders()).serviceLimits().get(0).remaining();
		}
		return Long.parseLong(response.getResponseHeaders().getFirst("RateLimit-Remaining"));
	}

	private static EntityExchangeResult<byte[]> get(GatewayRunner gateway, String path, String client) {
		return gateway.client().get().uri(path).header("X-Client", client).exchange().expectBody().returnResult();
	}

	private static ResponseSpec head(GatewayRunner gateway, String client) {
		return gateway.client().head().uri("/fixed/head").header("X-Client", client).exchange();
	}

	private static String[] properties(String style) {
		return new String[] { "spring.profiles.active=fields", "upstream.uri=" + upstream.uri(),
				"ratelimit.headers=" + style };
	}

	private static GatewayRunner gateway(String style) {
		return style.equals("draft-11") ? draft11 : draft06;
	}

}
