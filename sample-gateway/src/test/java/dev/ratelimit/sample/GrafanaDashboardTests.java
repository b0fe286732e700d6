package dev.ratelimit.sample;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/grafana/ratelimit-dashboard.json imports anywhere: a dashboard whose every panel
 * queries the Prometheus of the {@code DS_PROMETHEUS} input, filtered by instance, policy
 * and route variables; and the metric names its queries use are read from their PromQL
 * as Prometheus reads them. That each exists is asserted against the sample's scrapes
 * ({@link SampleGatewayOperationsTests}, {@link SampleGatewayRedisProfileTests}).
 */
class GrafanaDashboardTests {

	private static final Map<String, String> DATASOURCE = Map.of("type", "prometheus", "uid", "${DS_PROMETHEUS}");

	private final GrafanaDashboard dashboard = GrafanaDashboard.load();

	@Test
	void isADashboardWithAPrometheusInputAndTheFilterVariables() {
		assertThat(this.dashboard.json().read("$.__inputs[0].name", String.class)).isEqualTo("DS_PROMETHEUS");
		assertThat(this.dashboard.json().read("$.__inputs[0].pluginId", String.class)).isEqualTo("prometheus");
		assertThat(this.dashboard.json().read("$.schemaVersion", Integer.class)).isGreaterThanOrEqualTo(39);
		assertThat(this.dashboard.json().read("$.uid", String.class)).isEqualTo("ratelimit");
		assertThat(this.dashboard.json().read("$.templating.list[*].name", List.class)).containsExactly("instance",
				"policy", "route");
		assertThat(this.dashboard.json().read("$.templating.list[*].datasource", List.class)).containsOnly(DATASOURCE);
		assertThat(this.dashboard.json().read("$.panels[*].id", List.class)).doesNotHaveDuplicates();
	}

	@Test
	void everyPanelQueriesTheInputsDatasource() {
		assertThat(this.dashboard.panels()).hasSizeGreaterThan(10).allSatisfy((panel) -> {
			assertThat(panel.json().get("datasource")).as(panel.title()).isEqualTo(DATASOURCE);
			assertThat(panel.targets()).as(panel.title()).isNotEmpty().allSatisfy((target) -> {
				assertThat(target.get("datasource")).as(panel.title()).isEqualTo(DATASOURCE);
				assertThat((String) target.get("expr")).as(panel.title()).isNotBlank();
				assertThat(GrafanaDashboard.metricNames((String) target.get("expr"))).as(panel.title()).isNotEmpty();
			});
		});
	}

	@Test
	void theQueriesNameOurMetricsAlone() {
		assertThat(this.dashboard.queriedMetrics()).allMatch((name) -> name.startsWith("ratelimit_"))
			.contains("ratelimit_requests_total", "ratelimit_decision_seconds_bucket",
					"ratelimit_store_circuit_breaker", "ratelimit_store_errors_total");
		assertThat(this.dashboard.queriedMetrics(GrafanaDashboard.REDIS_ROW))
			.contains("ratelimit_requests_total", "ratelimit_blocks_total")
			.doesNotContain("ratelimit_store_circuit_breaker", "ratelimit_redis_calls_total");
	}

	@Test
	void metricNamesAreTheSelectorsOfAnExpressionAlone() {
		assertThat(GrafanaDashboard.metricNames("histogram_quantile(0.99, sum by (le, store) "
				+ "(rate(ratelimit_decision_seconds_bucket{instance=~\"$instance\"}[$__rate_interval])))"))
			.containsExactly("ratelimit_decision_seconds_bucket");
		assertThat(GrafanaDashboard.metricNames("sum without (instance) (rate(a_total{x=\"rate(b)\"}[5m] offset 1h)) "
				+ "/ on (policy) group_left (tier) c_total * 1e3 > bool 0.5 and up"))
			.containsExactly("a_total", "c_total", "up");
		assertThat(GrafanaDashboard.metricNames("sum(rate(ratelimit_requsts_total[1m]))"))
			.containsExactly("ratelimit_requsts_total");
	}

	@Test
	void sampleNamesAreTheNamesOfTheScrapesSamples() {
		String scrape = """
				# HELP ratelimit_requests_total Requests judged by rate limit policies
				# TYPE ratelimit_requests_total counter
				ratelimit_requests_total{outcome="allowed",policy="orders"} 1.0
				ratelimit_shaping_held 0.0
				""";
		assertThat(GrafanaDashboard.sampleNames(scrape)).containsExactly("ratelimit_requests_total",
				"ratelimit_shaping_held");
	}

}
