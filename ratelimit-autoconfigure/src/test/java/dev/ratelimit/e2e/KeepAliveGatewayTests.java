package dev.ratelimit.e2e;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.testsupport.Concurrently;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The traffic a rate limiter lives on: a client told {@code 429} retries on the same
 * keep-alive connection, and its next request must be proxied like any other. Reactor
 * Netty 1.3.6 sometimes stopped reading such a connection after a request the gateway
 * answered itself, while a proxied response's last write was still queued, so the next
 * request was never answered (reactor/reactor-netty#4361, fixed in 1.3.8; see the
 * version pins in the parent pom).
 */
class KeepAliveGatewayTests {

	private static final int CONNECTIONS = 30;

	private static final int PAIRS = 200;

	/**
	 * Generous: an answer takes milliseconds, so only a lost request runs into it.
	 */
	private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

	@Test
	void everyRequestOnAKeepAliveConnectionIsAnsweredAfterOneTheGatewayAnsweredItself() throws Exception {
		try (Upstream upstream = Upstream.start(); GatewayRunner gateway = GatewayRunner.start(
				"ratelimit.policies.exhausted.key=header:X-Client",
				"ratelimit.policies.exhausted.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.exhausted.tiers.anonymous[0].limit=3",
				"ratelimit.policies.exhausted.tiers.anonymous[0].window=1d",
				"spring.cloud.gateway.server.webflux.routes[0].id=proxied",
				"spring.cloud.gateway.server.webflux.routes[0].uri=" + upstream.uri(),
				"spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/proxied/**",
				"spring.cloud.gateway.server.webflux.routes[1].id=limited",
				"spring.cloud.gateway.server.webflux.routes[1].uri=" + upstream.uri(),
				"spring.cloud.gateway.server.webflux.routes[1].predicates[0]=Path=/limited/**",
				"spring.cloud.gateway.server.webflux.routes[1].filters[0]=RateLimit=exhausted")) {
			List<List<String>> lost = Concurrently.call(CONNECTIONS, (connection) -> pairs(gateway.port(), connection));

			List<String> all = lost.stream().flatMap(List::stream).toList();
			assertThat(all).as("requests not answered as expected within %s", READ_TIMEOUT).isEmpty();
			assertThat(upstream.hits("/limited/exhausted")).isEqualTo(CONNECTIONS * 3);
			for (int pair = 0; pair < PAIRS; pair++) {
				assertThat(upstream.hits("/proxied/" + pair)).as("proxied request %d", pair).isEqualTo(CONNECTIONS);
			}
		}
	}

	/**
	 * On one connection: use up the client's limit of 3 (proxied), then alternate a
	 * request the gateway answers itself (a 429 or a 404) with a proxied one.
	 * @return what went wrong, empty when every request was answered as expected
	 */
	private static List<String> pairs(int port, int connection) {
		String client = "keep-alive-" + connection;
		List<String> problems = new ArrayList<>();
		try (KeepAliveConnection http = new KeepAliveConnection(port, READ_TIMEOUT)) {
			for (int i = 0; i < 3; i++) {
				expect(problems, connection, "warm-up " + i, 200, http.get("/limited/exhausted", "X-Client", client));
			}
			for (int pair = 0; pair < PAIRS && problems.isEmpty(); pair++) {
				boolean rejected = pair % 2 == 0;
				int local = rejected ? http.get("/limited/exhausted", "X-Client", client) : http.get("/nowhere/" + pair);
				expect(problems, connection, "pair " + pair + " answered by the gateway", rejected ? 429 : 404, local);
				expect(problems, connection, "pair " + pair + " proxied", 200, http.get("/proxied/" + pair));
			}
		}
		catch (Exception ex) {
			problems.add("connection " + connection + ": " + ex);
		}
		return problems;
	}

	private static void expect(List<String> problems, int connection, String request, int expected, int actual) {
		if (actual != expected) {
			problems.add("connection " + connection + ", " + request + ": "
					+ ((actual < 0) ? "no answer" : "status " + actual) + ", expected " + expected);
		}
	}

}
