package dev.ratelimit.e2e;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import com.jayway.jsonpath.JsonPath;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Starts a whole gateway application on a random port with the given properties, for
 * tests that need one configuration each.
 */
final class GatewayRunner implements AutoCloseable {

	/**
	 * The prefix of the first configured route's properties.
	 */
	static final String FIRST_ROUTE = "spring.cloud.gateway.server.webflux.routes[0].";

	private final ConfigurableApplicationContext context;

	private GatewayRunner(ConfigurableApplicationContext context) {
		this.context = context;
	}

	static GatewayRunner start(String... properties) {
		return new GatewayRunner(application(properties).run());
	}

	/**
	 * Start the gateway with the test application's beans and those of
	 * {@code configuration}.
	 */
	static GatewayRunner start(Class<?> configuration, String... properties) {
		return new GatewayRunner(application(properties).sources(configuration).run());
	}

	static SpringApplicationBuilder application(String... properties) {
		List<String> all = new ArrayList<>(List.of("server.port=0", "spring.main.banner-mode=off"));
		all.addAll(List.of(properties));
		return new SpringApplicationBuilder(GatewayTestApplication.class).web(WebApplicationType.REACTIVE)
			.properties(all.toArray(new String[0]));
	}

	int port() {
		return ((WebServerApplicationContext) this.context).getWebServer().getPort();
	}

	WebTestClient client() {
		return WebTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + port())
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	/**
	 * The routes the {@code ratelimits} actuator endpoint (which the test must expose)
	 * lists for a policy.
	 */
	List<String> policyRoutes(String policy) {
		byte[] body = client().get()
			.uri("/actuator/ratelimits")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.returnResult()
			.getResponseBodyContent();
		return JsonPath.read(new String(body, StandardCharsets.UTF_8), "$.policies['" + policy + "'].routes");
	}

	ConfigurableApplicationContext context() {
		return this.context;
	}

	/**
	 * Change the environment as a config server or {@code /actuator/refresh} would, and
	 * announce the changed keys as Spring Cloud does.
	 * @param properties {@code key=value} pairs
	 */
	void changeEnvironment(String... properties) {
		TestPropertyValues.of(properties).applyTo(this.context);
		Set<String> keys = new TreeSet<>();
		for (String property : properties) {
			keys.add(property.substring(0, property.indexOf('=')));
		}
		this.context.publishEvent(new EnvironmentChangeEvent(this.context, keys));
	}

	<T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	@Override
	public void close() {
		this.context.close();
	}

}
