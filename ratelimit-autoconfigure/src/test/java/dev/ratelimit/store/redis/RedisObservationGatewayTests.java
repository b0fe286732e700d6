package dev.ratelimit.store.redis;

import dev.ratelimit.e2e.GatewayTestApplication;
import dev.ratelimit.e2e.Upstream;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A gateway on Redis with an observation registry: each decision Redis makes is observed
 * as {@code ratelimit.policy.decisions} with store {@code redis}, a child of the
 * request's observation, allowed then rejected; with Redis stopped, the decision its
 * failure mode ({@code on-failure: deny}) makes is observed as an error.
 */
class RedisObservationGatewayTests {

	private static final String NAME = "ratelimit.policy.decisions";

	private static final Upstream upstream = Upstream.start();

	private static TestRedis redis;

	private static ConfigurableApplicationContext gateway;

	private static WebTestClient client;

	@BeforeAll
	static void startGateway() {
		redis = TestRedis.startEmbedded();
		gateway = new SpringApplicationBuilder(GatewayTestApplication.class, Observed.class)
			.properties("server.port=0", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "ratelimit.store=redis", "ratelimit.redis.timeout=1s",
					"ratelimit.redis.on-failure=deny", "ratelimit.policies.exact.key=header:X-Client",
					"ratelimit.policies.exact.tiers.anonymous[0].algorithm=fixed-window",
					"ratelimit.policies.exact.tiers.anonymous[0].limit=1",
					"ratelimit.policies.exact.tiers.anonymous[0].window=1d",
					"spring.cloud.gateway.server.webflux.routes[0].id=exact",
					"spring.cloud.gateway.server.webflux.routes[0].uri=" + upstream.uri(),
					"spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/exact/**",
					"spring.cloud.gateway.server.webflux.routes[0].filters[0]=RateLimit=exact")
			.run();
		client = RedisGatewayTests.client(gateway);
	}

	@AfterAll
	static void stopGateway() {
		gateway.close();
		redis.close();
		upstream.close();
	}

	@Test
	void redisDecisionsAreChildrenOfTheRequestsObservationAndAFailureIsAnError() {
		TestObservationRegistry registry = gateway.getBean(TestObservationRegistry.class);
		assertThat(RedisGatewayTests.status(client, "/exact/a", "observed")).isEqualTo(HttpStatus.OK);
		assertThat(RedisGatewayTests.status(client, "/exact/a", "observed")).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		TestObservationRegistryAssert.assertThat(registry)
			.hasNumberOfObservationsWithNameEqualTo(NAME, 2)
			.forAllObservationsWithNameEqualTo(NAME,
					(observation) -> observation
						.hasParentObservationContextMatching(ServerRequestObservationContext.class::isInstance)
						.hasLowCardinalityKeyValue("policy", "exact")
						.hasLowCardinalityKeyValue("store", "redis"))
			.hasAnObservation((observation) -> observation.hasNameEqualTo(NAME)
				.hasLowCardinalityKeyValue("outcome", "allowed"))
			.hasAnObservation((observation) -> observation.hasNameEqualTo(NAME)
				.hasLowCardinalityKeyValue("outcome", "rejected"));

		redis.stop();
		assertThat(RedisGatewayTests.status(client, "/exact/a", "during-outage"))
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		TestObservationRegistryAssert.assertThat(registry)
			.hasNumberOfObservationsWithNameEqualTo(NAME, 3)
			.hasAnObservation((observation) -> observation.hasNameEqualTo(NAME)
				.hasLowCardinalityKeyValue("store", "redis")
				.hasLowCardinalityKeyValue("outcome", "error"));
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
