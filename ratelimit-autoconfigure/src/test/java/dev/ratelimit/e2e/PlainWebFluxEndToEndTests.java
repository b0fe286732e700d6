package dev.ratelimit.e2e;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import dev.ratelimit.support.ManualClock;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.WebFilter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A plain Spring WebFlux API service, started without Spring Cloud Gateway on its class
 * path, limited by {@code ratelimit.web.routes} on a real server: the first matching
 * route's policy applies, unmatched requests pass untouched, tiers come from a trusted
 * header and costs from another.
 */
class PlainWebFluxEndToEndTests {

	private static AutoCloseable application;

	private static WebTestClient client;

	@BeforeAll
	static void start() throws Exception {
		ClassLoader withoutGateway = WithoutGateway.classLoader();
		Class<?> launcher = withoutGateway.loadClass(ApiApplication.class.getName());
		application = (AutoCloseable) launcher.getMethod("start", String[].class).invoke(null, (Object) new String[] {
				"ratelimit.tiers.header=X-Plan", "ratelimit.policies.reads.key=header:X-Client",
				"ratelimit.policies.reads.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.reads.tiers.anonymous[0].limit=2",
				"ratelimit.policies.reads.tiers.anonymous[0].window=1m",
				"ratelimit.policies.reads.tiers.pro[0].algorithm=fixed-window",
				"ratelimit.policies.reads.tiers.pro[0].limit=5", "ratelimit.policies.reads.tiers.pro[0].window=1m",
				"ratelimit.policies.writes.key=route", "ratelimit.policies.writes.cost-header=X-Cost",
				"ratelimit.policies.writes.tiers.anonymous[0].algorithm=token-bucket",
				"ratelimit.policies.writes.tiers.anonymous[0].capacity=10",
				"ratelimit.policies.writes.tiers.anonymous[0].refill-rate=1",
				"ratelimit.web.routes[0].paths[0]=/api/orders/**", "ratelimit.web.routes[0].methods[0]=POST",
				"ratelimit.web.routes[0].id=order-writes", "ratelimit.web.routes[0].policy=writes",
				"ratelimit.web.routes[1].paths[0]=/api/**", "ratelimit.web.routes[1].paths[1]=/v2/api/**",
				"ratelimit.web.routes[1].policy=reads", "management.endpoints.web.exposure.include=ratelimits" });
		int port = (int) launcher.getMethod("port", Object.class).invoke(null, application);
		client = WebTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + port)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	@AfterAll
	static void stop() throws Exception {
		application.close();
	}

	@Test
	void theApplicationRunsWithoutTheGatewayOnItsClassPath() {
		assertThat(application.getClass().getClassLoader().getResource(
				"org/springframework/cloud/gateway/filter/GatewayFilter.class")).isNull();
		client.get().uri("/filters").exchange().expectBody(String.class).isEqualTo("RateLimitWebFilter");
	}

	@Test
	void theEndpointListsTheWebRoutesWithTheirPathsMethodsPolicyAndKey() {
		client.get()
			.uri("/actuator/ratelimits")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.routes.length()")
			.isEqualTo(2)
			.jsonPath("$.routes[0].id")
			.isEqualTo("order-writes")
			.jsonPath("$.routes[0].filter")
			.isEqualTo("ratelimit.web.routes")
			.jsonPath("$.routes[0].policy")
			.isEqualTo("writes")
			.jsonPath("$.routes[0].key")
			.isEqualTo("route")
			.jsonPath("$.routes[0].paths")
			.isEqualTo(List.of("/api/orders/**"))
			.jsonPath("$.routes[0].methods")
			.isEqualTo(List.of("POST"))
			.jsonPath("$.routes[1].policy")
			.isEqualTo("reads")
			.jsonPath("$.routes[1].key")
			.isEqualTo("header:X-Client")
			.jsonPath("$.routes[1].paths")
			.isEqualTo(List.of("/api/**", "/v2/api/**"))
			.jsonPath("$.routes[1].methods")
			.isEqualTo(List.of())
			.jsonPath("$.policies.writes.routes")
			.isEqualTo(List.of("order-writes"))
			.jsonPath("$.policies.reads.routes")
			.isEqualTo(List.of("/api/**,/v2/api/**"));
	}

	@Test
	void aMatchedRouteIsLimitedByItsPolicyWithHeadersAndAProblem() {
		for (int remaining = 1; remaining >= 0; remaining--) {
			client.get()
				.uri("/api/items")
				.header("X-Client", "limited")
				.exchange()
				.expectStatus()
				.isOk()
				.expectHeader()
				.valueEquals("RateLimit-Limit", "2")
				.expectHeader()
				.valueEquals("RateLimit-Remaining", Integer.toString(remaining))
				.expectBody(String.class)
				.isEqualTo("items");
		}
		client.get()
			.uri("/v2/api/items")
			.header("X-Client", "limited")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader()
			.exists("Retry-After")
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody()
			.jsonPath("$.violated-policies[0]")
			.isEqualTo("reads-anonymous-1");
	}

	@Test
	void anUnmatchedRequestPassesUntouched() {
		for (int i = 0; i < 4; i++) {
			client.get()
				.uri("/health")
				.exchange()
				.expectStatus()
				.isOk()
				.expectHeader()
				.doesNotExist("RateLimit-Limit")
				.expectBody(String.class)
				.isEqualTo("up");
		}
	}

	@Test
	void theTierComesFromTheTrustedHeaderAndUnknownTiersGetTheDefault() {
		client.get()
			.uri("/api/pro")
			.header("X-Plan", "pro")
			.header("X-Client", "tiered")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Limit", "5")
			.expectBody(Void.class);
		client.get()
			.uri("/api/gold")
			.header("X-Plan", "gold")
			.header("X-Client", "tiered")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Limit", "2")
			.expectBody(Void.class);
	}

	@Test
	void theFirstMatchingRouteWinsAndTheCostComesFromTheTrustedHeader() {
		client.post()
			.uri("/api/orders/1")
			.header("X-Cost", "4")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Limit", "10")
			.expectHeader()
			.valueEquals("RateLimit-Remaining", "6")
			.expectBody(Void.class);
		for (String invalid : new String[] { "abc", "0", "-1", "11" }) {
			client.post()
				.uri("/api/orders/1")
				.header("X-Cost", invalid)
				.exchange()
				.expectStatus()
				.isBadRequest()
				.expectHeader()
				.doesNotExist("Retry-After")
				.expectBody()
				.jsonPath("$.detail")
				.isEqualTo("The X-Cost header must be a whole number from 1 to 10, the most one request may cost "
						+ "under this route's rate limit; it was '" + invalid + "'.");
		}
		client.post()
			.uri("/api/orders/1")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Remaining", "5")
			.expectBody(Void.class);
	}

	/**
	 * An API service: no gateway, a few handlers, a clock that stands still. Started in
	 * a class loader without Spring Cloud Gateway, so that a class of the starter that
	 * still needed it would fail the start.
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	public static class ApiApplication {

		public static AutoCloseable start(String... properties) {
			// Spring's factories and Boot's auto-configuration are read from the context
			// class loader.
			Thread thread = Thread.currentThread();
			ClassLoader previous = thread.getContextClassLoader();
			thread.setContextClassLoader(ApiApplication.class.getClassLoader());
			try {
				return new SpringApplicationBuilder(ApiApplication.class).web(WebApplicationType.REACTIVE)
					.properties("server.port=0", "spring.main.banner-mode=off")
					.properties(properties)
					.run();
			}
			finally {
				thread.setContextClassLoader(previous);
			}
		}

		public static int port(Object context) {
			return ((WebServerApplicationContext) context).getWebServer().getPort();
		}

		/**
		 * Change the environment and announce the changed keys, as Spring Cloud's
		 * refresh does.
		 */
		public static void changeEnvironment(Object context, String... properties) {
			ConfigurableApplicationContext application = (ConfigurableApplicationContext) context;
			TestPropertyValues.of(properties).applyTo(application);
			Set<String> keys = new TreeSet<>();
			for (String property : properties) {
				keys.add(property.substring(0, property.indexOf('=')));
			}
			application.publishEvent(new EnvironmentChangeEvent(application, keys));
		}

		@Bean
		ManualClock manualClock() {
			return new ManualClock();
		}

		@Bean
		RouterFunction<ServerResponse> api(List<WebFilter> filters) {
			String filterNames = filters.stream()
				.map((filter) -> filter.getClass().getSimpleName())
				.filter((name) -> name.startsWith("RateLimit"))
				.collect(Collectors.joining(","));
			return RouterFunctions.route()
				.GET("/filters", (request) -> ServerResponse.ok().bodyValue(filterNames))
				.GET("/health", (request) -> ServerResponse.ok().bodyValue("up"))
				.GET("/api/items", (request) -> ServerResponse.ok().bodyValue("items"))
				.GET("/v2/api/items", (request) -> ServerResponse.ok().bodyValue("items"))
				.GET("/api/{tier}", (request) -> ServerResponse.ok().bodyValue("tier"))
				.POST("/api/orders/{id}", (request) -> ServerResponse.ok().bodyValue("created"))
				.build();
		}

	}

}
