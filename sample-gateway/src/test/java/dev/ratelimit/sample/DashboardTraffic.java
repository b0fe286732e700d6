package dev.ratelimit.sample;

import java.time.Duration;

import reactor.core.publisher.Flux;

import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Traffic after which the sample's scrape has every series the Grafana dashboard
 * queries: allowed and rejected requests, held ones (shaping), a slot in flight, a
 * counted failure (settlement) and a penalty block. Its clients (the {@code dashboard}
 * API key and tenant, and failed logins) are no other test's, so that the tests sharing
 * the sample see their own buckets as they left them.
 */
final class DashboardTraffic {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final WebClient client;

	DashboardTraffic(int port) {
		this.client = WebClient.create("http://localhost:" + port);
	}

	void send() {
		// A leaky bucket of 3: the fourth is refused.
		statuses("/api/payments/dashboard", 4, 1);
		// Shaping at 2/s: all but the first are held.
		statuses("/api/transfers/dashboard", 3, 3);
		// A concurrency limit: the export holds its slot while it runs.
		statuses("/api/exports/dashboard.csv", 1, 1);
		// 5 a minute per client and tenant, then a penalty block.
		statuses("/api/catalog/dashboard", 6, 1);
		// Only failed logins count, after their response.
		this.client.post()
			.uri("/api/login")
			.header("X-Password", "dashboard")
			.exchangeToMono((response) -> response.releaseBody())
			.block(WAIT);
	}

	/**
	 * The Prometheus text scrape.
	 */
	String scrape() {
		return this.client.get()
			.uri("/actuator/prometheus")
			.accept(MediaType.TEXT_PLAIN)
			.retrieve()
			.bodyToMono(String.class)
			.block(WAIT);
	}

	private void statuses(String path, int requests, int concurrency) {
		Flux.range(0, requests)
			.flatMap((i) -> this.client.get()
				.uri(path)
				.header("X-API-Key", "dashboard")
				.header("X-Tenant", "dashboard")
				.exchangeToMono((response) -> response.releaseBody()), concurrency)
			.then()
			.block(WAIT);
	}

}
