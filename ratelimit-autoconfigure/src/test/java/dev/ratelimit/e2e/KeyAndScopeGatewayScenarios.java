package dev.ratelimit.e2e;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.metrics.RateLimitRequestMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Composite keys and what a policy applies to, through a real gateway to a real upstream,
 * on the store a subclass configures. The gateway trusts the test's own address as a
 * proxy, so that {@code X-Forwarded-For} names each request's client. Each test has
 * policies and clients of its own, so that they share one gateway; every limit refills
 * one unit a day, so that none refills during a test.
 * <ul>
 * <li>{@code /tenants/**}: policy {@code tenants}, key {@code [ip, header:X-Tenant]}, 2
 * per client and tenant.</li>
 * <li>{@code /pairs/**}: policy {@code pairs}, key {@code [header:X-A, header:X-B]}, 1
 * per pair.</li>
 * <li>{@code /strict/**}: policy {@code strict}, key {@code [ip, query:account]}, 1 per
 * client and account, requests without an account refused with 400.</li>
 * <li>{@code /writes/**}: policy {@code writes}, key {@code ip}, 1 {@code POST} on
 * {@code /writes/api/**} per client; any other request is none of its business.</li>
 * <li>{@code /exempting/**}: policy {@code exempting}, key {@code ip}, 1 per client,
 * except clients in {@code 192.0.2.0/24}, the API key {@code vip-key} and the tier
 * {@code pro} (API key {@code pro-key}).</li>
 * </ul>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class KeyAndScopeGatewayScenarios {

	private static final String ROUTES = "spring.cloud.gateway.server.webflux.routes";

	private final Upstream upstream = Upstream.start();

	private GatewayRunner gateway;

	/**
	 * The properties that put the gateway's policies on the store under test.
	 */
	protected abstract List<String> storeProperties();

	/**
	 * Stop what {@link #storeProperties()} started.
	 */
	protected void stopStore() {
	}

	@BeforeAll
	void startGateway() {
		List<String> properties = new ArrayList<>(List.of("ratelimit.trusted-proxies=127.0.0.1",
				"ratelimit.tiers.api-keys.vip-key=anonymous", "ratelimit.tiers.api-keys.pro-key=pro",
				"management.endpoints.web.exposure.include=ratelimits"));
		properties.addAll(policy("tenants", 2, "key=ip,header:X-Tenant"));
		properties.addAll(policy("pairs", 1, "key[0]=header:X-A", "key[1]=header:X-B"));
		properties.addAll(policy("strict", 1, "key=ip,query:account", "on-missing-key=reject",
				"missing-key-status=400"));
		properties.addAll(policy("writes", 1, "key=ip", "methods=POST", "paths=/writes/api/**"));
		properties.addAll(policy("exempting", 1, "key=ip", "exempt.addresses=192.0.2.0/24",
				"exempt.api-keys=vip-key", "exempt.tiers=pro"));
		String[] policies = { "tenants", "pairs", "strict", "writes", "exempting" };
		for (int i = 0; i < policies.length; i++) {
			String route = ROUTES + "[" + i + "].";
			properties.addAll(List.of(route + "id=" + policies[i], route + "uri=" + this.upstream.uri(),
					route + "predicates[0]=Path=/" + policies[i] + "/**", route + "filters[0]=RateLimit=" + policies[i]));
		}
		properties.addAll(storeProperties());
		this.gateway = GatewayRunner.start(properties.toArray(new String[0]));
	}

	@AfterAll
	void stop() {
		this.gateway.close();
		this.upstream.close();
		stopStore();
	}

	private static List<String> policy(String id, int capacity, String... settings) {
		String prefix = "ratelimit.policies." + id + ".";
		List<String> properties = new ArrayList<>();
		for (String tier : new String[] { "anonymous", "pro" }) {
			String limit = prefix + "tiers." + tier + "[0].";
			properties.addAll(List.of(limit + "algorithm=token-bucket", limit + "capacity=" + capacity,
					limit + "refill-rate=1", limit + "refill-period=1d"));
		}
		for (String setting : settings) {
			properties.add(prefix + setting);
		}
		return properties;
	}

	@Test
	void aCompositeKeyGivesEachCombinationItsOwnBucket() {
		assertThat(remaining(get("/tenants/a", "198.51.100.1", "X-Tenant", "acme"))).isEqualTo("1");
		assertThat(remaining(get("/tenants/a", "198.51.100.1", "X-Tenant", "acme"))).isEqualTo("0");
		assertThat(get("/tenants/a", "198.51.100.1", "X-Tenant", "acme").getStatus())
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(remaining(get("/tenants/a", "198.51.100.1", "X-Tenant", "globex"))).as("another tenant")
			.isEqualTo("1");
		assertThat(remaining(get("/tenants/a", "198.51.100.2", "X-Tenant", "acme"))).as("another client")
			.isEqualTo("1");
		assertThat(this.upstream.hits("/tenants/a")).isEqualTo(4);
	}

	@Test
	void aRequestLackingAPartCountsAgainstItsClientAddressAlone() {
		assertThat(remaining(get("/tenants/b", "198.51.100.3"))).isEqualTo("1");
		assertThat(remaining(get("/tenants/b", "198.51.100.3", "X-Tenant", ""))).as("an empty header is none")
			.isEqualTo("0");
		assertThat(get("/tenants/b", "198.51.100.3").getStatus()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(remaining(get("/tenants/b", "198.51.100.3", "X-Tenant", "acme"))).as("with its tenant")
			.isEqualTo("1");
	}

	@Test
	void aPolicyRejectingMissingKeysRefusesARequestLackingAPart() {
		EntityExchangeResult<byte[]> lacking = get("/strict/a", "198.51.100.4");
		assertThat(lacking.getStatus()).isEqualTo(HttpStatus.BAD_REQUEST);
		assertThat(lacking.getResponseHeaders().getFirst("RateLimit-Remaining")).isNull();
		assertThat(new String(lacking.getResponseBody(), StandardCharsets.UTF_8))
			.contains("needs the account query parameter to tell clients apart; the request has none.");
		assertThat(remaining(get("/strict/a?account=7", "198.51.100.4"))).isEqualTo("0");
		assertThat(get("/strict/a?account=7", "198.51.100.4").getStatus()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(remaining(get("/strict/a?account=8", "198.51.100.4"))).isEqualTo("0");
		assertThat(this.upstream.hits("/strict/a")).isZero();
		assertThat(this.upstream.hits("/strict/a?account=7")).isEqualTo(1);
		assertThat(requests("strict", "missing-key")).isEqualTo(1);
	}

	@Test
	void noTwoCombinationsShareABucketWhateverTheirValuesHold() {
		assertThat(get("/pairs/a", "198.51.100.5", "X-A", "x|y", "X-B", "z").getStatus()).isEqualTo(HttpStatus.OK);
		assertThat(get("/pairs/a", "198.51.100.5", "X-A", "x", "X-B", "y|z").getStatus()).isEqualTo(HttpStatus.OK);
		assertThat(get("/pairs/a", "198.51.100.5", "X-A", "x%7Cy", "X-B", "z").getStatus()).isEqualTo(HttpStatus.OK);
		String hostile = "{a}:*?[b]\\%|".repeat(200);
		assertThat(get("/pairs/a", "198.51.100.5", "X-A", hostile, "X-B", "z").getStatus()).isEqualTo(HttpStatus.OK);
		assertThat(get("/pairs/a", "198.51.100.5", "X-A", hostile, "X-B", "z").getStatus())
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(get("/pairs/a", "198.51.100.5", "X-A", "x|y", "X-B", "z").getStatus())
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void theActuatorShowsACompositeKeyAndWhatAPolicyAppliesToAsConfigured() {
		String body = actuator();
		assertThat((String) JsonPath.read(body, "$.policies.tenants.key")).isEqualTo("[ip, header:X-Tenant]");
		assertThat((String) JsonPath.read(body, "$.policies.writes.key")).isEqualTo("ip");
		assertThat((Map<String, Object>) JsonPath.read(body, "$.policies.tenants")).doesNotContainKey("scope");
		assertThat((List<String>) JsonPath.read(body, "$.policies.writes.scope.methods")).containsExactly("POST");
		assertThat((List<String>) JsonPath.read(body, "$.policies.writes.scope.paths"))
			.containsExactly("/writes/api/**");
		assertThat((List<String>) JsonPath.read(body, "$.policies.exempting.scope.exemptAddresses"))
			.containsExactly("192.0.2.0/24");
		assertThat((Integer) JsonPath.read(body, "$.policies.exempting.scope.exemptApiKeys")).isOne();
		assertThat(body).as("an exempt API key is counted, never shown").doesNotContain("vip-key");
		assertThat((List<String>) JsonPath.read(body, "$.policies.exempting.scope.exemptTiers"))
			.containsExactly("pro");
	}

	private String actuator() {
		return new String(this.gateway.client()
			.get()
			.uri("/actuator/ratelimits")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.returnResult()
			.getResponseBodyContent(), StandardCharsets.UTF_8);
	}

	@Test
	void aPostOnlyPolicyLetsOtherRequestsPassUncountedWithoutHeaders() {
		for (int i = 0; i < 3; i++) {
			EntityExchangeResult<byte[]> read = get("/writes/api/x", "198.51.100.6");
			assertThat(read.getStatus()).isEqualTo(HttpStatus.OK);
			assertThat(read.getResponseHeaders().headerNames()).noneMatch((name) -> name.startsWith("RateLimit"));
		}
		EntityExchangeResult<byte[]> elsewhere = send(HttpMethod.POST, "/writes/other", "198.51.100.6");
		assertThat(elsewhere.getStatus()).isEqualTo(HttpStatus.OK);
		assertThat(elsewhere.getResponseHeaders().getFirst("RateLimit-Remaining")).isNull();
		assertThat(remaining(send(HttpMethod.POST, "/writes/api/x", "198.51.100.6"))).isEqualTo("0");
		assertThat(send(HttpMethod.POST, "/writes/api/x", "198.51.100.6").getStatus())
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(this.upstream.hits("/writes/api/x")).isEqualTo(4);
		assertThat(requests("writes", "allowed")).isEqualTo(1);
		assertThat(requests("writes", "rejected")).isEqualTo(1);
	}

	@Test
	void anExemptAddressApiKeyOrTierPassesUncountedAndTheMetricsSayExempt() {
		List<EntityExchangeResult<byte[]>> exempt = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			exempt.add(get("/exempting/a", "192.0.2.9"));
			exempt.add(get("/exempting/a", "198.51.100.7", "X-API-Key", "vip-key"));
			exempt.add(get("/exempting/a", "198.51.100.7", "X-API-Key", "pro-key"));
		}
		assertThat(exempt).allSatisfy((result) -> {
			assertThat(result.getStatus()).isEqualTo(HttpStatus.OK);
			assertThat(result.getResponseHeaders().getFirst("RateLimit-Remaining")).isNull();
		});
		assertThat(remaining(get("/exempting/a", "198.51.100.7"))).as("the same client without a key").isEqualTo("0");
		assertThat(get("/exempting/a", "198.51.100.7").getStatus()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(remaining(get("/exempting/a", "192.0.3.1"))).as("outside the block").isEqualTo("0");
		assertThat(this.upstream.hits("/exempting/a")).isEqualTo(11);
		assertThat(requests("exempting", "exempt")).isEqualTo(9);
		assertThat(requests("exempting", "allowed")).isEqualTo(2);
		assertThat(counter("exempting", "pro", "exempt")).isEqualTo(3);
		assertThat((Integer) JsonPath.read(actuator(), "$.policies.exempting.totals.exempt")).isEqualTo(9);
	}

	private EntityExchangeResult<byte[]> get(String path, String client, String... headers) {
		return send(HttpMethod.GET, path, client, headers);
	}

	/**
	 * Send a request from {@code client}, as the trusted proxy in front of the gateway
	 * names it, with the {@code headers} given as name and value pairs.
	 */
	private EntityExchangeResult<byte[]> send(HttpMethod method, String path, String client, String... headers) {
		return this.gateway.client()
			.method(method)
			.uri(path)
			.headers((request) -> {
				request.set("X-Forwarded-For", client);
				for (int i = 0; i < headers.length; i += 2) {
					request.set(headers[i], headers[i + 1]);
				}
			})
			.exchange()
			.expectBody()
			.returnResult();
	}

	private static String remaining(EntityExchangeResult<byte[]> result) {
		assertThat(result.getStatus()).isEqualTo(HttpStatus.OK);
		return result.getResponseHeaders().getFirst("RateLimit-Remaining");
	}

	private double requests(String policy, String outcome) {
		return this.gateway.bean(MeterRegistry.class)
			.find(RateLimitRequestMetrics.REQUESTS)
			.tag("policy", policy)
			.tag("outcome", outcome)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	private double counter(String policy, String tier, String outcome) {
		return this.gateway.bean(MeterRegistry.class)
			.get(RateLimitRequestMetrics.REQUESTS)
			.tag("policy", policy)
			.tag("tier", tier)
			.tag("outcome", outcome)
			.counter()
			.count();
	}

}
