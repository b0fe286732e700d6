package dev.ratelimit.e2e;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.metrics.RateLimitRequestMetrics;
import dev.ratelimit.support.ManualClock;
import dev.ratelimit.web.Draft11Fields;
import dev.ratelimit.web.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.http.HttpHeaders;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Several policies on one route, judged together, through a real gateway to a real
 * upstream, on the store a subclass configures, with {@code draft-11} headers. Each test
 * has clients (and routes) of its own, so that they share one gateway.
 * <ul>
 * <li>{@code /issue/**}: {@code RateLimit=per-ip,global}, the shortcut: 3 per window
 * per client address, 100 per window for the route.</li>
 * <li>{@code /given-back/**}: the long form, {@code policies: [shared, per-client]}: 100
 * per window for the route, then 2 per client.</li>
 * <li>{@code /mixed/**}: {@code RateLimit=shared,local-per-client}, the second policy on
 * the Caffeine store whatever the store under test.</li>
 * <li>{@code /logins/**}: {@code RateLimit=failed-logins,per-client}, the first counting
 * only the {@code 401}s, after the response.</li>
 * </ul>
 * A client is told apart by {@code X-Client}, or by the address its trusted proxy
 * forwards.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class SeveralPoliciesGatewayScenarios {

	private static final String ROUTES = "spring.cloud.gateway.server.webflux.routes";

	protected final Upstream upstream = Upstream.start();

	private GatewayRunner gateway;

	/**
	 * The properties that put the gateway's policies on the store under test.
	 */
	protected abstract List<String> storeProperties();

	/**
	 * The window of every limit: one the test never sees end.
	 */
	protected abstract Duration window();

	/**
	 * Stop what {@link #storeProperties()} started.
	 */
	protected void stopStore() {
	}

	@BeforeAll
	void startGateway() {
		this.upstream.answer("/logins/fail", Upstream.json(401, "{\"error\":\"who are you\"}"));
		this.gateway = GatewayRunner.start(gatewayProperties("draft-11").toArray(new String[0]));
		this.gateway.bean(ManualClock.class).advanceToMultipleOf(Duration.ofDays(1));
	}

	@AfterAll
	void stop() {
		this.gateway.close();
		this.upstream.close();
		stopStore();
	}

	protected List<String> gatewayProperties(String headers) {
		List<String> properties = new ArrayList<>(List.of("ratelimit.headers=" + headers,
				"ratelimit.trusted-proxies[0]=127.0.0.0/8", "management.endpoints.web.exposure.include=ratelimits"));
		properties.addAll(policy("per-ip", "ip", 3));
		properties.addAll(policy("global", "route", 100));
		properties.addAll(policy("shared", "route", 100));
		properties.addAll(policy("per-client", "header:X-Client", 2));
		properties.addAll(policy("local-per-client", "header:X-Client", 2));
		properties.add("ratelimit.policies.local-per-client.store=caffeine");
		properties.addAll(policy("failed-logins", "header:X-Client", 3));
		properties.add("ratelimit.policies.failed-logins.count-responses=401");
		properties.addAll(route(0, "issue", List.of("filters[0]=RateLimit=per-ip,global")));
		properties.addAll(route(1, "given-back", List.of("filters[0].name=RateLimit",
				"filters[0].args.policies[0]=shared", "filters[0].args.policies[1]=per-client")));
		properties.addAll(route(2, "mixed", List.of("filters[0]=RateLimit=shared,local-per-client")));
		properties.addAll(route(3, "logins", List.of("filters[0]=RateLimit=failed-logins,per-client")));
		properties.addAll(storeProperties());
		return properties;
	}

	private List<String> policy(String id, String key, int limit) {
		String prefix = "ratelimit.policies." + id + ".";
		return List.of(prefix + "key=" + key, prefix + "tiers.anonymous[0].algorithm=fixed-window",
				prefix + "tiers.anonymous[0].limit=" + limit,
				prefix + "tiers.anonymous[0].window=" + window().toSeconds() + "s");
	}

	private List<String> route(int index, String id, List<String> filters) {
		String prefix = ROUTES + "[" + index + "].";
		List<String> route = new ArrayList<>(List.of(prefix + "id=" + id, prefix + "uri=" + this.upstream.uri(),
				prefix + "predicates[0]=Path=/" + id + "/**"));
		filters.forEach((filter) -> route.add(prefix + filter));
		return route;
	}

	/**
	 * The issue's route, per-IP 3 and per-route 100, as one filter: every response tells
	 * the client of both policies, so the refusal comes from a policy it was told of.
	 */
	@Test
	void everyResponseTellsTheClientOfEveryPolicyAndTheRefusalNamesThePolicyItWasToldOf() {
		for (int remaining = 2; remaining >= 0; remaining--) {
			EntityExchangeResult<byte[]> admitted = get("/issue/a", "X-Forwarded-For", "198.51.100.1");
			assertThat(admitted.getStatus().value()).isEqualTo(200);
			Draft11Fields fields = Draft11Fields.of(admitted.getResponseHeaders());
			assertThat(fields.policies()).extracting(Draft11Fields.Policy::name)
				.containsExactly("per-ip-anonymous-1", "global-anonymous-1");
			assertThat(fields.serviceLimit("per-ip-anonymous-1").remaining()).isEqualTo(remaining);
			assertThat(fields.serviceLimit("global-anonymous-1").remaining()).isEqualTo(97 + remaining);
		}
		EntityExchangeResult<byte[]> refused = get("/issue/a", "X-Forwarded-For", "198.51.100.1");
		assertThat(refused.getStatus().value()).isEqualTo(429);
		assertThat(refused.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isNotNull();
		assertThat(Draft11Fields.of(refused.getResponseHeaders()).serviceLimit("per-ip-anonymous-1").remaining())
			.isZero();
		assertThat(JsonPath.<List<String>>read(body(refused), "$.violated-policies"))
			.containsExactly("per-ip-anonymous-1");
		assertThat(this.upstream.hits("/issue/a")).isEqualTo(3);
		EntityExchangeResult<byte[]> another = get("/issue/b", "X-Forwarded-For", "198.51.100.2");
		assertThat(Draft11Fields.of(another.getResponseHeaders()).serviceLimit("global-anonymous-1").remaining())
			.as("the refused request took nothing from the route's quota")
			.isEqualTo(96);
	}

	@Test
	void whatAPolicyDecidedBeforeTheOneThatRefusesTookIsGivenBackAndOnlyTheRefusingPolicyReportsIt() {
		RecordingListener listener = this.gateway.bean(RecordingListener.class);
		for (int remaining = 1; remaining >= 0; remaining--) {
			Draft11Fields fields = Draft11Fields.of(get("/given-back/a", "X-Client", "given-back-a").getResponseHeaders());
			assertThat(fields.serviceLimit("per-client-anonymous-1").remaining()).isEqualTo(remaining);
		}
		listener.clear();
		EntityExchangeResult<byte[]> refused = get("/given-back/a", "X-Client", "given-back-a");
		assertThat(refused.getStatus().value()).isEqualTo(429);
		Draft11Fields fields = Draft11Fields.of(refused.getResponseHeaders());
		assertThat(fields.serviceLimit("per-client-anonymous-1").remaining()).isZero();
		assertThat(fields.serviceLimit("shared-anonymous-1").remaining()).as("given back before the refusal")
			.isEqualTo(98);
		assertThat(listener.decisions()).extracting(RecordingListener.Decision::policy, RecordingListener.Decision::outcome)
			.containsExactly(tuple("per-client", Outcome.REJECTED));
		assertThat(Draft11Fields.of(get("/given-back/b", "X-Client", "given-back-b").getResponseHeaders())
			.serviceLimit("shared-anonymous-1")
			.remaining()).isEqualTo(97);
		assertThat(requests("shared", "given-back", Outcome.ALLOWED)).isEqualTo(3);
		assertThat(requests("per-client", "given-back", Outcome.REJECTED)).isEqualTo(1);
		assertThat(this.gateway.policyRoutes("shared")).contains("given-back", "mixed");
		assertThat(this.gateway.policyRoutes("per-client")).contains("given-back", "logins");
	}

	@Test
	void policiesOnDifferentStoresJudgeTogether() {
		get("/mixed/a", "X-Client", "mixed-a");
		get("/mixed/a", "X-Client", "mixed-a");
		EntityExchangeResult<byte[]> refused = get("/mixed/a", "X-Client", "mixed-a");
		assertThat(refused.getStatus().value()).isEqualTo(429);
		assertThat(Draft11Fields.of(refused.getResponseHeaders()).serviceLimit("shared-anonymous-1").remaining())
			.isEqualTo(98);
		assertThat(Draft11Fields.of(get("/mixed/b", "X-Client", "mixed-b").getResponseHeaders())
			.serviceLimit("shared-anonymous-1")
			.remaining()).isEqualTo(97);
		assertThat(this.upstream.hits("/mixed/a")).isEqualTo(2);
	}

	@Test
	void aPolicyCountingResponsesSettlesAfterTheResponseAndItsHeadersTellBothPolicies() {
		EntityExchangeResult<byte[]> failed = get("/logins/fail", "X-Client", "logins-a");
		assertThat(failed.getStatus().value()).isEqualTo(401);
		Draft11Fields fields = Draft11Fields.of(failed.getResponseHeaders());
		assertThat(fields.serviceLimit("failed-logins-anonymous-1").remaining()).as("charged before the commit")
			.isEqualTo(2);
		assertThat(fields.serviceLimit("per-client-anonymous-1").remaining()).isEqualTo(1);
		EntityExchangeResult<byte[]> ok = get("/logins/ok", "X-Client", "logins-a");
		assertThat(ok.getStatus().value()).isEqualTo(200);
		fields = Draft11Fields.of(ok.getResponseHeaders());
		assertThat(fields.serviceLimit("failed-logins-anonymous-1").remaining()).isEqualTo(2);
		assertThat(fields.serviceLimit("per-client-anonymous-1").remaining()).isZero();
		assertThat(get("/logins/fail", "X-Client", "logins-a").getStatus().value()).isEqualTo(429);
		assertThat(this.upstream.hits("/logins/fail")).isEqualTo(1);
	}

	@Test
	void draft06DescribesTheLimitWithTheLeastRemainingOfEveryPolicy() {
		List<String> properties = gatewayProperties("draft-06");
		// Buckets of their own on a store the gateways share.
		properties.add("ratelimit.redis.key-prefix=draft-06");
		try (GatewayRunner draft06 = GatewayRunner.start(properties.toArray(new String[0]))) {
			WebTestClient client = draft06.client();
			HttpHeaders first = client.get()
				.uri("/issue/draft-06")
				.header("X-Forwarded-For", "198.51.100.6")
				.exchange()
				.expectStatus()
				.isOk()
				.expectBody()
				.returnResult()
				.getResponseHeaders();
			long window = window().toSeconds();
			assertThat(first.getFirst("RateLimit-Policy")).isEqualTo("3;w=" + window + ", 100;w=" + window);
			assertThat(first.getFirst("RateLimit-Limit")).isEqualTo("3");
			assertThat(first.getFirst("RateLimit-Remaining")).isEqualTo("2");
		}
	}

	protected EntityExchangeResult<byte[]> get(String path, String header, String value) {
		return this.gateway.client().get().uri(path).header(header, value).exchange().expectBody().returnResult();
	}

	private static String body(EntityExchangeResult<byte[]> result) {
		return new String(result.getResponseBodyContent(), StandardCharsets.UTF_8);
	}

	private double requests(String policy, String route, Outcome outcome) {
		Counter counter = this.gateway.bean(MeterRegistry.class)
			.find(RateLimitRequestMetrics.REQUESTS)
			.tags("policy", policy, "route", route, "outcome", outcome.tagValue())
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

}
