package dev.ratelimit.e2e;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.support.ManualClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The detail sentence of a 429 comes from the application's messages
 * ({@code spring.messages.basename}) in {@code ratelimit.problem.locale}, and from
 * this starter's defaults for the codes the application does not define.
 */
class LocalizedDetailEndToEndTests {

	private static final Upstream upstream = Upstream.start();

	@AfterAll
	static void stopUpstream() {
		upstream.close();
	}

	@Test
	void withoutApplicationMessagesTheDetailIsTheDefaultEnglish() {
		assertSecondRequestDetail("You have exceeded the rate limit of 1 request per 5 minutes.");
	}

	@Test
	void theApplicationsBaseMessagesRewordWhatTheyDefine() {
		assertSecondRequestDetail("Slow down: at most 1 request per 5 minutes.",
				"spring.messages.basename=i18n/ratelimit-test");
	}

	@Test
	void theConfiguredLocaleSelectsTheApplicationsTranslation() {
		assertSecondRequestDetail("Sie haben das Limit von 1 Anfrage pro 5 Minuten überschritten.",
				"spring.messages.basename=i18n/ratelimit-test", "ratelimit.problem.locale=de");
	}

	private static void assertSecondRequestDetail(String detail, String... properties) {
		List<String> all = new ArrayList<>(List.of(properties));
		all.addAll(List.of("ratelimit.policies.p.key=ip",
				"ratelimit.policies.p.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.p.tiers.anonymous[0].limit=1",
				"ratelimit.policies.p.tiers.anonymous[0].window=5m", GatewayRunner.FIRST_ROUTE + "id=p", GatewayRunner.FIRST_ROUTE + "uri=" + upstream.uri(),
				GatewayRunner.FIRST_ROUTE + "predicates[0]=Path=/p/**", GatewayRunner.FIRST_ROUTE + "filters[0]=RateLimit=p"));
		try (GatewayRunner gateway = GatewayRunner.start(all.toArray(new String[0]))) {
			gateway.bean(ManualClock.class).advanceToMultipleOf(Duration.ofMinutes(5));
			WebTestClient client = gateway.client();
			client.get().uri("/p/x").exchange().expectStatus().isOk().expectBody(Void.class);
			client.get()
				.uri("/p/x")
				.exchange()
				.expectStatus()
				.isEqualTo(429)
				.expectBody()
				.jsonPath("$.detail")
				.isEqualTo(detail);
		}
	}

}
