package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.ratelimit.e2e.GatewayTestApplication;
import dev.ratelimit.e2e.Upstream;
import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.policy.Tier;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The trial of issue 20: two gateway instances just started on one Redis, 40 requests
 * at once split over both against a {@code store: redis} limit of 10, with the default
 * timeout and on-failure mode. Exact from the first request: 10 admitted, 30 rejected,
 * none decided by on-failure, which would have admitted them.
 */
class RedisFirstRequestsGatewayTests {

	@Test
	void twoJustStartedGatewaysAdmitExactlyTheLimitOfFortyRequestsAtOnce() {
		try (Upstream upstream = Upstream.start(); TestRedis redis = TestRedis.startEmbedded()) {
			// Started one after the other: Spring Boot's logging system is one per JVM, and
			// two applications initializing it at once race on its Logback context
			// ("Unable to find Spring Environment in logger context"). Neither has served a
			// request when the 40 are sent.
			List<ConfigurableApplicationContext> gateways = new ArrayList<>();
			try {
				gateways.add(gateway(redis, upstream));
				gateways.add(gateway(redis, upstream));
				// Start-up loaded the trial tier's own lean script: no first request waits on
				// a NOSCRIPT and an EVAL of the whole source.
				Tier trial = gateways.get(0).getBean(LivePolicies.class).get().policy("trial").defaultTier();
				assertThat(redis.cached(List.of(ScriptAssembler.lean(new RedisLayout("rl", "trial", trial).leanLimit()))))
					.containsExactly(true);
				List<Integer> statuses = Flux.range(0, 40)
					.flatMap((request) -> status(gateways.get(request % 2)), 40)
					.collectList()
					.block(Duration.ofSeconds(30));
				assertThat(statuses).as("statuses, with %s request(s) decided by on-failure", fallbacks(gateways))
					.containsOnly(200, 429)
					.filteredOn((status) -> status == 200)
					.hasSize(10);
				assertThat(upstream.hits("/trial")).isEqualTo(10);
			}
			finally {
				gateways.forEach(ConfigurableApplicationContext::close);
			}
		}
	}

	/**
	 * A limit a live reload brings finds its lean script in Redis before its first
	 * request, as the limits of start-up do.
	 */
	@Test
	void aLimitALiveReloadBringsIsLoadedBeforeItsFirstRequest() {
		try (Upstream upstream = Upstream.start(); TestRedis redis = TestRedis.startEmbedded()) {
			ConfigurableApplicationContext gateway = gateway(redis, upstream);
			try {
				String limit = "ratelimit.policies.trial.tiers.anonymous[0].";
				// The list binds from the one source that has it: the whole element.
				TestPropertyValues.of(limit + "algorithm=fixed-window", limit + "limit=20", limit + "window=1h")
					.applyTo(gateway);
				gateway.publishEvent(new EnvironmentChangeEvent(gateway, Set.of(limit + "limit")));
				Tier trial = gateway.getBean(LivePolicies.class).get().policy("trial").defaultTier();
				assertThat(trial.limits().get(0).quota()).isEqualTo(20);
				String script = ScriptAssembler.lean(new RedisLayout("rl", "trial", trial).leanLimit());
				Pause.until("the reloaded limit's script is in Redis", Duration.ofSeconds(10),
						() -> redis.cached(List.of(script)).get(0));
				assertThat(status(gateway).block(Duration.ofSeconds(10))).isEqualTo(200);
			}
			finally {
				gateway.close();
			}
		}
	}

	/**
	 * A request of the one client on a new connection, so that all 40 are sent at once.
	 */
	private static Mono<Integer> status(ConfigurableApplicationContext gateway) {
		return HttpClient.newConnection()
			.headers((headers) -> headers.add("X-Client", "trial-client"))
			.get()
			.uri("http://127.0.0.1:" + gateway.getEnvironment().getProperty("local.server.port") + "/trial")
			.responseSingle((response, body) -> body.then(Mono.just(response.status().code())));
	}

	private static long fallbacks(List<ConfigurableApplicationContext> gateways) {
		return gateways.stream()
			.mapToLong((gateway) -> (Long) gateway.getBean(RedisBucketStore.class).health().details().get("fallbacks"))
			.sum();
	}

	private static ConfigurableApplicationContext gateway(TestRedis redis, Upstream upstream) {
		return new SpringApplicationBuilder(GatewayTestApplication.class)
			.properties("server.port=0", "spring.main.banner-mode=off", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "ratelimit.store=redis",
					"ratelimit.policies.trial.key=header:X-Client",
					"ratelimit.policies.trial.tiers.anonymous[0].algorithm=fixed-window",
					"ratelimit.policies.trial.tiers.anonymous[0].limit=10",
					"ratelimit.policies.trial.tiers.anonymous[0].window=1h",
					"spring.cloud.gateway.server.webflux.routes[0].id=trial",
					"spring.cloud.gateway.server.webflux.routes[0].uri=" + upstream.uri(),
					"spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/trial",
					"spring.cloud.gateway.server.webflux.routes[0].filters[0]=RateLimit=trial")
			.run();
	}

}
