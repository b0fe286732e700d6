package dev.ratelimit.actuate;

import java.util.List;
import java.util.Set;

import dev.ratelimit.actuate.gateway.ActuatorGatewayApplication;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.PolicyReloads;
import org.htmlunit.BrowserVersion;
import org.htmlunit.WebClient;
import org.htmlunit.html.DomElement;
import org.htmlunit.html.DomNode;
import org.htmlunit.html.HtmlPage;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.MediaType;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard in a browser engine (HtmlUnit runs its script) against a running
 * gateway with real traffic: it shows each policy's totals, limit names and hottest
 * buckets, a shaping policy's delayed requests, the requests this node holds, and the
 * last reload, as the {@code ratelimits} endpoint reports them.
 */
@SpringBootTest(classes = ActuatorGatewayApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "ratelimit.actuator.dashboard.enabled=true")
@AutoConfigureWebTestClient
@ActiveProfiles("actuator")
class RateLimitDashboardGatewayTests {

	@LocalServerPort
	private int port;

	@Autowired
	private WebTestClient client;

	@Autowired
	private PolicyReloads reloads;

	@Test
	void showsTotalsLimitNamesTheHottestBucketsOfRealTrafficAndARejectedReload() throws Exception {
		for (int i = 0; i < 5; i++) {
			this.client.get().uri("/metered").header("X-API-Key", "metered-key").exchange().expectBody(Void.class);
		}
		this.reloads.rejected(Set.of("ratelimit.policies.orders.tiers.free[0].capacity"),
				List.of(new ConfigurationProblem("ratelimit.policies.orders.tiers.free[0].capacity", 0,
						"must be at least 1")));
		try (WebClient browser = new WebClient(BrowserVersion.CHROME)) {
			HtmlPage page = browser.getPage("http://127.0.0.1:" + this.port + "/actuator/ratelimits-dashboard");
			browser.waitForBackgroundJavaScript(3000);
			DomNode metered = page.querySelector("#policy-metered");
			assertThat((Object) metered).as("the metered policy card").isNotNull();
			assertThat(text(metered, ".allowed-total")).isEqualTo("3");
			assertThat(text(metered, ".rejected-total")).isEqualTo("2");
			assertThat(text(metered, ".live-buckets")).isEqualTo("1");
			assertThat(text(metered, ".meta")).contains("store caffeine").contains("routes metered");
			List<DomNode> rows = metered.querySelectorAll("tr.bucket");
			assertThat(rows).hasSize(1);
			// echo -n metered-key | sha256sum: the masked key, never the raw one
			assertThat(text(rows.get(0), ".key")).startsWith("mete…").doesNotContain("metered-key");
			assertThat(text(rows.get(0), ".tier")).isEqualTo("free");
			assertThat(text(rows.get(0), ".requests")).isEqualTo("5");
			assertThat(text(rows.get(0), ".remaining")).isEqualTo("metered-daily (token-bucket): 0 of 3 left");
			assertThat(text(metered, ".limits")).isEqualTo(
					"anonymous: metered-anonymous-1 (fixed-window) · free: metered-daily (token-bucket)");
			assertThat((Object) page.querySelector("#policy-orders")).as("every policy has a card").isNotNull();
			assertThat(page.getElementById("error").isDisplayed()).isFalse();
			DomElement reload = page.getElementById("reload");
			assertThat(reload.getAttribute("class")).isEqualTo("rejected");
			assertThat(reload.getTextContent()).contains("rejected (ratelimit.policies.orders.tiers.free[0].capacity)")
				.contains("ratelimit.policies.orders.tiers.free[0].capacity: was 0, must be at least 1");
		}
	}

	@Test
	void showsWhatAShapingPolicyDelayedOnlyOnItsCardAndTheRequestsThisNodeHolds() throws Exception {
		// A shadow policy: the second request is counted as delayed and forwarded at once.
		for (int i = 0; i < 2; i++) {
			this.client.get().uri("/shaped").header("X-Client", "shaped-client").exchange().expectBody(Void.class);
		}
		try (WebClient browser = new WebClient(BrowserVersion.CHROME)) {
			HtmlPage page = browser.getPage("http://127.0.0.1:" + this.port + "/actuator/ratelimits-dashboard");
			browser.waitForBackgroundJavaScript(3000);
			DomNode shaped = page.querySelector("#policy-shaped");
			assertThat((Object) shaped).as("the shaped policy card").isNotNull();
			assertThat(text(shaped, ".allowed-total")).isEqualTo("1");
			assertThat(text(shaped, ".delayed-total")).isEqualTo("1");
			assertThat(text(shaped, ".holds-full-total")).isEqualTo("0");
			assertThat(((DomElement) shaped.querySelector(".delayed-total")).isDisplayed()).isTrue();
			DomElement metered = page.getElementById("policy-metered");
			assertThat(metered.getAttribute("class")).isEqualTo("policy");
			assertThat(((DomElement) metered.querySelector(".delayed-total")).isDisplayed()).isFalse();
			assertThat(page.getElementById("held").getTextContent()).isEqualTo("holding 0 of 10000 requests");
		}
	}

	@Test
	void isOneSelfContainedPage() {
		String html = this.client.get()
			.uri("/actuator/ratelimits-dashboard")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.contentTypeCompatibleWith(MediaType.TEXT_HTML)
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		assertThat(html).contains("var base = '/actuator';").doesNotContain("__ACTUATOR_BASE__");
		assertThat(html).doesNotContainPattern("(src|href)=\"https?:");
	}

	private static String text(DomNode node, String selector) {
		DomNode found = node.querySelector(selector);
		assertThat((Object) found).as(selector).isNotNull();
		return found.getTextContent().trim();
	}

}
