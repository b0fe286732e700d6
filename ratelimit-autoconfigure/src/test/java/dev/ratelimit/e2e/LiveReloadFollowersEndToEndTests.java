package dev.ratelimit.e2e;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.support.ManualClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What is built once at start-up from the policies, yet follows a live reload: a
 * policy's {@code RateLimiter} bean on a {@code RequestRateLimiter} route, and the web
 * filter of {@code ratelimit.web.routes}. A reload that would leave either naming a
 * removed policy is refused.
 */
@ExtendWith(OutputCaptureExtension.class)
class LiveReloadFollowersEndToEndTests {

	private static final Upstream upstream = Upstream.start();

	private static final String ORDERS = "ratelimit.policies.orders.tiers.anonymous[0].";

	private static final String ITEMS = "ratelimit.policies.items.tiers.anonymous[0].";

	private static final String DEFAULT_PROPERTIES = "defaultProperties";

	private static final String SECOND_ROUTE = "spring.cloud.gateway.server.webflux.routes[1].";

	private GatewayRunner gateway;

	@BeforeEach
	void startGateway() {
		this.gateway = GatewayRunner.start("ratelimit.policies.orders.tiers.pro[0].algorithm=fixed-window",
				"ratelimit.policies.orders.tiers.pro[0].limit=5", "ratelimit.policies.orders.tiers.pro[0].window=1h",
				ORDERS + "algorithm=fixed-window", ORDERS + "limit=2", ORDERS + "window=1h",
				"ratelimit.policies.items.key=header:X-Tenant", ITEMS + "algorithm=fixed-window", ITEMS + "limit=2",
				ITEMS + "window=1h", GatewayRunner.FIRST_ROUTE + "id=orders-route",
				GatewayRunner.FIRST_ROUTE + "uri=" + upstream.uri(),
				GatewayRunner.FIRST_ROUTE + "predicates[0]=Path=/orders/**",
				GatewayRunner.FIRST_ROUTE + "filters[0].name=RequestRateLimiter",
				GatewayRunner.FIRST_ROUTE + "filters[0].args.rate-limiter=#{@ordersRateLimiter}",
				GatewayRunner.FIRST_ROUTE + "filters[0].args.key-resolver=#{@tenantKeyResolver}",
				SECOND_ROUTE + "id=items-route", SECOND_ROUTE + "uri=" + upstream.uri(),
				SECOND_ROUTE + "predicates[0]=Path=/items/**", "ratelimit.web.routes[0].id=items-web",
				"ratelimit.web.routes[0].paths[0]=/items/**", "ratelimit.web.routes[0].policy=items");
		this.gateway.bean(ManualClock.class).advanceToMultipleOf(Duration.ofHours(1));
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
	void aRaisedLimitReachesTheRateLimiterBeanAndKeepsWhatTheClientSpent() {
		assertThat(send("/orders/1", "acme", 3)).containsExactly("200 2 1", "200 2 0", "429 2 0");
		change(ORDERS + "algorithm=fixed-window", ORDERS + "limit=4", ORDERS + "window=1h");
		assertThat(send("/orders/1", "acme", 3)).containsExactly("200 4 1", "200 4 0", "429 4 0");
	}

	@Test
	void aChangedApiKeyMappingReachesTheRateLimiterBean() {
		assertThat(send("/orders/1", "acme", 1)).containsExactly("200 2 1");
		change("ratelimit.tiers.api-keys.acme=pro");
		assertThat(send("/orders/1", "acme", 1)).containsExactly("200 5 4");
	}

	@Test
	void aRaisedLimitReachesTheWebFilterAndKeepsWhatTheClientSpent() {
		assertThat(send("/items/1", "acme", 3)).containsExactly("200 2 1", "200 2 0", "429 2 0");
		change(ITEMS + "algorithm=fixed-window", ITEMS + "limit=3", ITEMS + "window=1h");
		assertThat(send("/items/1", "acme", 2)).containsExactly("200 3 0", "429 3 0");
	}

	@Test
	void aReloadRemovingAPolicyARouteNamesIsRefusedNamingTheRouteAndThePolicy(CapturedOutput output) {
		removePolicies("orders", "items");
		change("ratelimit.policies.renamed.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.renamed.tiers.anonymous[0].limit=9",
				"ratelimit.policies.renamed.tiers.anonymous[0].window=1h");
		assertThat(output).contains("Rate limit settings change rejected")
			.contains("ratelimit.web.routes[0].policy (web route 'items-web', read once at start-up): was 'items',"
					+ " must name a policy defined under ratelimit.policies (defined: [renamed])")
			.contains(GatewayRunner.FIRST_ROUTE + "filters[0]: was RequestRateLimiter rate-limiter=#{@ordersRateLimiter}")
			.contains("policy 'orders' would be removed");
		assertThat(send("/orders/1", "acme", 3)).containsExactly("200 2 1", "200 2 0", "429 2 0");
		assertThat(send("/items/1", "acme", 3)).containsExactly("200 2 1", "200 2 0", "429 2 0");
	}

	/**
	 * Take policies out of the environment, as a configuration file edited before a
	 * refresh would.
	 */
	private void removePolicies(String... policies) {
		MutablePropertySources sources = this.gateway.context().getEnvironment().getPropertySources();
		MapPropertySource defaults = (MapPropertySource) sources.get(DEFAULT_PROPERTIES);
		Map<String, Object> remaining = new HashMap<>(defaults.getSource());
		for (String policy : policies) {
			remaining.keySet().removeIf((key) -> key.startsWith("ratelimit.policies." + policy + "."));
		}
		sources.replace(DEFAULT_PROPERTIES,
				new MapPropertySource(DEFAULT_PROPERTIES, remaining));
	}

	private void change(String... properties) {
		this.gateway.changeEnvironment(properties);
	}

	/**
	 * Each response's status, limit and remaining quota, as {@code "200 2 1"}.
	 */
	private List<String> send(String path, String tenant, int requests) {
		List<String> outcomes = new ArrayList<>();
		for (int i = 0; i < requests; i++) {
			EntityExchangeResult<byte[]> result = this.gateway.client()
				.get()
				.uri(path)
				.header("X-Tenant", tenant)
				.exchange()
				.expectBody()
				.returnResult();
			outcomes.add(QuotaOutcome.of(result));
		}
		return outcomes;
	}

}
