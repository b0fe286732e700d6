package dev.ratelimit.e2e;

import java.util.ArrayList;
import java.util.List;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A gateway with Actuator and an observation registry (Spring Boot configures it, here a
 * {@link TestObservationRegistry}, with its meter handler and its
 * {@code management.observations} properties): each policy's decision is observed as
 * {@code ratelimit.policy.decisions}, a child of Spring WebFlux's observation of the
 * request, and is scraped by Prometheus beside the {@code ratelimit.decision} timer;
 * {@code management.observations.enable.ratelimit=false} turns it off.
 */
class ObservationGatewayTests {

	private static final String NAME = "ratelimit.policy.decisions";

	private static final Upstream upstream = Upstream.start();

	@AfterAll
	static void stopUpstream() {
		upstream.close();
	}

	@Test
	void eachPolicysDecisionIsAChildOfTheRequestsObservationAndBothTimersAreScraped() {
		try (GatewayRunner gateway = GatewayRunner.start(Observed.class, properties())) {
			WebTestClient client = gateway.client();
			assertThat(status(client)).isEqualTo(HttpStatus.OK);
			assertThat(status(client)).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
			TestObservationRegistry registry = gateway.bean(TestObservationRegistry.class);
			TestObservationRegistryAssert.assertThat(registry)
				.hasNumberOfObservationsWithNameEqualTo(NAME, 4)
				.forAllObservationsWithNameEqualTo(NAME,
						(observation) -> observation
							.hasParentObservationContextMatching(ServerRequestObservationContext.class::isInstance)
							.doesNotHaveLowCardinalityKeyValue("outcome", "unknown")
							.hasLowCardinalityKeyValue("store", "caffeine")
							.hasLowCardinalityKeyValue("tier", "anonymous"))
				.hasAnObservation((observation) -> observation.hasNameEqualTo(NAME)
					.hasLowCardinalityKeyValue("policy", "per-client")
					.hasLowCardinalityKeyValue("outcome", "rejected"));
			String scrape = client.get()
				.uri("/actuator/prometheus")
				.exchange()
				.expectStatus()
				.isOk()
				.expectBody(String.class)
				.returnResult()
				.getResponseBody();
			assertThat(scrape).contains("ratelimit_decision_seconds_count{store=\"caffeine\"} 3")
				.contains("ratelimit_policy_decisions_seconds_count{error=\"none\",outcome=\"allowed\","
						+ "policy=\"shared\",store=\"caffeine\",tier=\"anonymous\"} 2")
				.contains("ratelimit_policy_decisions_seconds_count{error=\"none\",outcome=\"allowed\","
						+ "policy=\"per-client\",store=\"caffeine\",tier=\"anonymous\"} 1")
				.contains("ratelimit_policy_decisions_seconds_count{error=\"none\",outcome=\"rejected\","
						+ "policy=\"per-client\",store=\"caffeine\",tier=\"anonymous\"} 1")
				.doesNotContain("observed-client");
			assertThat(scrape).as("the starter's handler times decisions, ahead of Boot's for the others")
				.doesNotContain("ratelimit_policy_decisions_active")
				.contains("http_server_requests_active_seconds");
		}
	}

	@Test
	void managementObservationsEnableRatelimitFalseTurnsTheObservationsOff() {
		List<String> properties = new ArrayList<>(List.of(properties()));
		properties.add("management.observations.enable.ratelimit=false");
		try (GatewayRunner gateway = GatewayRunner.start(Observed.class, properties.toArray(new String[0]))) {
			WebTestClient client = gateway.client();
			assertThat(status(client)).isEqualTo(HttpStatus.OK);
			assertThat(status(client)).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
			TestObservationRegistryAssert.assertThat(gateway.bean(TestObservationRegistry.class))
				.hasNumberOfObservationsWithNameEqualTo(NAME, 0)
				.hasAnObservation((observation) -> observation.hasNameEqualTo("http.server.requests"));
		}
	}

	private static HttpStatus status(WebTestClient client) {
		return HttpStatus.valueOf(client.get()
			.uri("/observed/a")
			.header("X-Client", "observed-client")
			.exchange()
			.returnResult(Void.class)
			.getStatus()
			.value());
	}

	/**
	 * A route of two policies: one quota for the route, and one of a single request per
	 * client.
	 */
	private static String[] properties() {
		return new String[] { "management.endpoints.web.exposure.include=prometheus",
				"ratelimit.policies.shared.key=route",
				"ratelimit.policies.shared.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.shared.tiers.anonymous[0].limit=100",
				"ratelimit.policies.shared.tiers.anonymous[0].window=1h",
				"ratelimit.policies.per-client.key=header:X-Client",
				"ratelimit.policies.per-client.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.per-client.tiers.anonymous[0].limit=1",
				"ratelimit.policies.per-client.tiers.anonymous[0].window=1h", GatewayRunner.FIRST_ROUTE + "id=observed",
				GatewayRunner.FIRST_ROUTE + "uri=" + upstream.uri(),
				GatewayRunner.FIRST_ROUTE + "predicates[0]=Path=/observed/**",
				GatewayRunner.FIRST_ROUTE + "filters[0]=RateLimit=shared,per-client" };
	}

	/**
	 * The application's observation registry, which Spring Boot configures as its own.
	 */
	@Configuration(proxyBeanMethods = false)
	static class Observed {

		@Bean
		TestObservationRegistry observationRegistry() {
			return TestObservationRegistry.create();
		}

	}

}
