package dev.ratelimit.e2e;

import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.web.Outcome;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests without the key their policy limits by: counted against the client address,
 * or, where the policy says so, rejected before the upstream with the chosen status.
 */
class MissingKeyEndToEndTests {

	private static final Upstream upstream = Upstream.start();

	private static GatewayRunner gateway;

	@BeforeAll
	static void startGateway() {
		gateway = GatewayRunner.start("ratelimit.policies.strict.key=header:X-Tenant",
				"ratelimit.policies.strict.on-missing-key=reject", "ratelimit.policies.strict.missing-key-status=400",
				"ratelimit.policies.strict.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.strict.tiers.anonymous[0].limit=1",
				"ratelimit.policies.strict.tiers.anonymous[0].window=1m",
				"ratelimit.policies.lenient.key=header:X-Tenant",
				"ratelimit.policies.lenient.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.lenient.tiers.anonymous[0].limit=1",
				"ratelimit.policies.lenient.tiers.anonymous[0].window=1m", route(0, "strict"), uri(0),
				"spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/strict/**",
				"spring.cloud.gateway.server.webflux.routes[0].filters[0]=RateLimit=strict", route(1, "lenient"),
				uri(1), "spring.cloud.gateway.server.webflux.routes[1].predicates[0]=Path=/lenient/**",
				"spring.cloud.gateway.server.webflux.routes[1].filters[0]=RateLimit=lenient");
	}

	@AfterAll
	static void stop() {
		gateway.close();
		upstream.close();
	}

	@BeforeEach
	void forgetDecisions() {
		gateway.bean(RecordingListener.class).clear();
	}

	@Test
	void aRejectingPolicyAnswersARequestWithoutItsKeyWithTheChosenStatus() {
		for (int i = 0; i < 3; i++) {
			EntityExchangeResult<byte[]> result = gateway.client()
				.get()
				.uri("/strict/a")
				.exchange()
				.expectStatus()
				.isEqualTo(HttpStatus.BAD_REQUEST)
				.expectHeader()
				.contentType(MediaType.APPLICATION_PROBLEM_JSON)
				.expectHeader()
				.doesNotExist("RateLimit-Limit")
				.expectBody()
				.returnResult();
			Map<String, Object> problem = JsonPath.parse(new String(result.getResponseBody())).read("$");
			// No type member: "about:blank", which a missing type means (RFC 9457 section 3.1.1).
			assertThat(problem).doesNotContainKey("type")
				.containsEntry("status", 400)
				.containsEntry("title", "Bad Request")
				.containsEntry("instance", "/strict/a");
			assertThat((String) problem.get("detail")).contains("needs the X-Tenant header");
		}
		assertThat(upstream.hits("/strict/a")).isZero();
		assertThat(gateway.bean(RecordingListener.class).decisions())
			.extracting(RecordingListener.Decision::outcome)
			.containsExactly(Outcome.MISSING_KEY, Outcome.MISSING_KEY, Outcome.MISSING_KEY);
	}

	@Test
	void aRejectingPolicyStillLimitsRequestsThatHaveTheirKey() {
		expectStatus("/strict/b", "acme", HttpStatus.OK);
		expectStatus("/strict/b", "acme", HttpStatus.TOO_MANY_REQUESTS);
		expectStatus("/strict/b", "globex", HttpStatus.OK);
		assertThat(upstream.hits("/strict/b")).isEqualTo(2);
	}

	@Test
	void byDefaultRequestsWithoutTheKeyShareTheirClientAddresssQuota() {
		expectStatus("/lenient/c", null, HttpStatus.OK);
		expectStatus("/lenient/c", null, HttpStatus.TOO_MANY_REQUESTS);
		expectStatus("/lenient/c", "", HttpStatus.TOO_MANY_REQUESTS);
		assertThat(upstream.hits("/lenient/c")).isEqualTo(1);
	}

	/**
	 * Send {@code path} with {@code tenant} as its X-Tenant header (none when
	 * {@code null}), expect {@code status} and release the body.
	 */
	private static void expectStatus(String path, @Nullable String tenant, HttpStatus status) {
		gateway.client()
			.get()
			.uri(path)
			.headers((headers) -> {
				if (tenant != null) {
					headers.set("X-Tenant", tenant);
				}
			})
			.exchange()
			.expectStatus()
			.isEqualTo(status)
			.expectBody(Void.class);
	}

	private static String route(int index, String id) {
		return "spring.cloud.gateway.server.webflux.routes[" + index + "].id=" + id;
	}

	private static String uri(int index) {
		return "spring.cloud.gateway.server.webflux.routes[" + index + "].uri=" + upstream.uri();
	}

}
