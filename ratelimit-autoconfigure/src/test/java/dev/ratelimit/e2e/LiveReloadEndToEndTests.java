package dev.ratelimit.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Rate limit settings changed while the gateway runs, as Spring Cloud's refresh
 * announces them (an {@code EnvironmentChangeEvent}): valid ones apply to the next
 * request, invalid ones are logged and the settings in force stay.
 */
@ExtendWith(OutputCaptureExtension.class)
class LiveReloadEndToEndTests {

	private static final Upstream upstream = Upstream.start();

	private static final String ANONYMOUS = "ratelimit.policies.orders.tiers.anonymous[0].";

	private GatewayRunner gateway;

	@BeforeEach
	void startGateway() {
		this.gateway = GatewayRunner.start("management.endpoints.web.exposure.include=ratelimits",
				"ratelimit.tiers.api-keys.key-1=anonymous", ANONYMOUS + "algorithm=fixed-window",
				ANONYMOUS + "limit=2", ANONYMOUS + "window=1h",
				"ratelimit.policies.orders.tiers.pro[0].algorithm=fixed-window",
				"ratelimit.policies.orders.tiers.pro[0].limit=5", "ratelimit.policies.orders.tiers.pro[0].window=1h",
				"spring.cloud.gateway.server.webflux.routes[0].id=orders",
				"spring.cloud.gateway.server.webflux.routes[0].uri=" + upstream.uri(),
				"spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/orders/**",
				"spring.cloud.gateway.server.webflux.routes[0].filters[0]=RateLimit=orders");
	}

	@AfterEach
	void stopGateway() {
		this.gateway.close();
	}

	@AfterAll
	static void stopUpstream() {
		upstream.close();
	}

	@Test
	void aRaisedLimitAppliesToTheNextRequestAndKeepsWhatTheClientSpent() {
		assertThat(send("key-1", 3)).containsExactly("200 1", "200 0", "429 0");
		change(anonymous(4, "1h"));
		// The window is the same: the 2 spent still count against the new limit of 4.
		assertThat(send("key-1", 3)).containsExactly("200 1", "200 0", "429 0");
		assertThat(limitHeader("key-1")).isEqualTo("4");
		DocumentContext json = JsonPath.parse(read("/actuator/ratelimits"));
		assertThat(json.read("$.policies.orders.tiers.anonymous[0].parameters", Map.class)).containsEntry("limit", 4);
	}

	@Test
	void anAddedPolicyIsListedAndGauged() {
		change("ratelimit.policies.invoices.tiers.anonymous[0].algorithm=token-bucket",
				"ratelimit.policies.invoices.tiers.anonymous[0].capacity=7",
				"ratelimit.policies.invoices.tiers.anonymous[0].refill-rate=1");
		DocumentContext json = JsonPath.parse(read("/actuator/ratelimits"));
		assertThat(json.read("$.policies.invoices.tiers.anonymous[0].parameters", Map.class))
			.containsEntry("capacity", 7);
		assertThat(this.gateway.bean(MeterRegistry.class)
			.get("ratelimit.buckets")
			.tag("policy", "invoices")
			.tag("store", "caffeine")
			.gauge()
			.value()).isZero();
	}

	@Test
	void aLoweredLimitLeavesAClientThatSpentMoreWithNothing() {
		assertThat(send("key-1", 2)).containsExactly("200 1", "200 0");
		change(anonymous(1, "1h"));
		assertThat(send("key-1", 1)).containsExactly("429 0");
	}

	@Test
	void aChangedWindowStartsTheClientAfresh() {
		assertThat(send("key-1", 3)).containsExactly("200 1", "200 0", "429 0");
		change(anonymous(2, "30m"));
		assertThat(send("key-1", 3)).containsExactly("200 1", "200 0", "429 0");
	}

	@Test
	void aChangedApiKeyMappingMovesTheKeyToItsNewTier() {
		assertThat(send("key-1", 1)).containsExactly("200 1");
		change("ratelimit.tiers.api-keys.key-1=pro");
		assertThat(send("key-1", 1)).containsExactly("200 4");
		assertThat(limitHeader("key-1")).isEqualTo("5");
		change("ratelimit.tiers.api-keys.key-2=pro");
		assertThat(send("key-2", 1)).containsExactly("200 4");
	}

	@Test
	void anInvalidChangeIsLoggedWithEachProblemAndTheLimitInForceStays(CapturedOutput output) {
		assertThat(send("key-1", 1)).containsExactly("200 1");
		change("ratelimit.policies.orders.tiers.anonymous[0].algorithm=fixed-window", ANONYMOUS + "limit=0",
				ANONYMOUS + "window=1h", "ratelimit.policies.orders.tiers.pro[0].algorithm=fixed-window",
				"ratelimit.policies.orders.tiers.pro[0].limit=5", "ratelimit.policies.orders.tiers.pro[0].window=0s");
		assertThat(output).contains("Rate limit settings change rejected")
			.contains("the policies in force stay unchanged")
			.contains("ratelimit.policies.orders.tiers.anonymous[0].limit: was 0, must be a positive number")
			.contains("ratelimit.policies.orders.tiers.pro[0].window: was ")
			.contains("must be a positive duration");
		assertThat(send("key-1", 2)).containsExactly("200 0", "429 0");
		assertThat(limitHeader("key-1")).isEqualTo("2");
	}

	@Test
	void aValueThatCannotBeBoundIsRejectedNamingTheProperty(CapturedOutput output) {
		// Spring Cloud fails the refresh too, when it rebinds the properties bean.
		assertThatException().isThrownBy(() -> change(ANONYMOUS + "algorithm=fixed-window", ANONYMOUS + "limit=two",
				ANONYMOUS + "window=1h"));
		assertThat(output).contains("Rate limit settings change rejected")
			.contains("ratelimit.policies.orders.tiers.anonymous[0].limit: was two, must be a whole number");
		assertThat(send("key-1", 3)).containsExactly("200 1", "200 0", "429 0");
	}

	@Test
	void aChangeLeavingARouteWithAnUndefinedPolicyIsRejected(CapturedOutput output) {
		List<String> properties = new ArrayList<>(List.of(anonymous(3, "1h")));
		properties.addAll(List.of("spring.cloud.gateway.server.webflux.routes[0].id=orders",
				"spring.cloud.gateway.server.webflux.routes[0].uri=" + upstream.uri(),
				"spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/orders/**",
				"spring.cloud.gateway.server.webflux.routes[0].filters[0]=RateLimit=invoices"));
		change(properties.toArray(new String[0]));
		assertThat(output).contains("Rate limit settings change rejected")
			.contains("spring.cloud.gateway.server.webflux.routes[0].filters[0]")
			.contains("must name a policy defined under ratelimit.policies");
		assertThat(send("key-1", 3)).containsExactly("200 1", "200 0", "429 0");
	}

	@Test
	void aChangeToASettingReadOnlyAtStartUpIsNamedInAWarning(CapturedOutput output) {
		List<String> properties = new ArrayList<>(List.of(anonymous(3, "1h")));
		properties.add("ratelimit.api-key-header=X-Key");
		change(properties.toArray(new String[0]));
		assertThat(output).contains("[ratelimit.api-key-header] changed but are read once, at start-up");
		assertThat(send("key-1", 1)).containsExactly("200 2");
	}

	/**
	 * The anonymous tier's one limit, whole: a list is bound from one property source.
	 */
	private static String[] anonymous(long limit, String window) {
		return new String[] { ANONYMOUS + "algorithm=fixed-window", ANONYMOUS + "limit=" + limit,
				ANONYMOUS + "window=" + window };
	}

	private void change(String... properties) {
		this.gateway.changeEnvironment(properties);
	}

	/**
	 * Each response's status and remaining quota, as {@code "200 1"}.
	 */
	private List<String> send(String apiKey, int requests) {
		List<String> outcomes = new ArrayList<>();
		for (int i = 0; i < requests; i++) {
			EntityExchangeResult<byte[]> result = this.gateway.client()
				.get()
				.uri("/orders/1")
				.header("X-API-Key", apiKey)
				.exchange()
				.expectBody()
				.returnResult();
			outcomes.add(result.getStatus().value() + " "
					+ result.getResponseHeaders().getFirst("RateLimit-Remaining"));
		}
		return outcomes;
	}

	private String limitHeader(String apiKey) {
		return this.gateway.client()
			.get()
			.uri("/orders/1")
			.header("X-API-Key", apiKey)
			.exchange()
			.expectBody()
			.returnResult()
			.getResponseHeaders()
			.getFirst("RateLimit-Limit");
	}

	private String read(String path) {
		return new String(this.gateway.client().get().uri(path).exchange().expectBody().returnResult().getResponseBody());
	}

}
