package dev.ratelimit.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.Set;

import dev.ratelimit.metrics.RateLimitBucketMetrics;
import dev.ratelimit.metrics.RateLimitDecisionMeterObservationHandler;
import dev.ratelimit.metrics.RateLimitHeldRequestsMetrics;
import dev.ratelimit.metrics.RateLimitReloadMetrics;
import dev.ratelimit.metrics.RateLimitRemoteStoreMetrics;
import dev.ratelimit.metrics.RateLimitRequestMetrics;
import dev.ratelimit.policy.PolicyReloads;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.testsupport.FixedSnapshotsInspector;
import dev.ratelimit.testsupport.TestPolicies;
import dev.ratelimit.web.DefaultRateLimitDecisionObservationConvention;
import dev.ratelimit.web.HeldRequests;
import dev.ratelimit.web.Outcome;
import dev.ratelimit.web.RateLimitDecisionObservationContext;
import dev.ratelimit.web.RateLimitObservationDocumentation;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static dev.ratelimit.testsupport.FixedSnapshotsInspector.fixedWindow;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitMetricsAutoConfiguration}.
 */
class RateLimitMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
				RateLimitMetricsAutoConfiguration.class))
		.withBean(RateLimitPolicies.class, TestPolicies::policies)
		.withBean(FixedSnapshotsInspector.class, () -> new FixedSnapshotsInspector("caffeine").add("orders", "free",
				"demo-free-key", 3, fixedWindow(10, 7)));

	@Test
	void recordsRequestsAndGaugesBucketsInTheAutoConfiguredRegistry() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(RateLimitRequestMetrics.class)
				.hasSingleBean(RateLimitBucketMetrics.class);
			context.getBean(RateLimitRequestMetrics.class)
				.onDecision("orders", "free", "orders-route", "caffeine", Outcome.REJECTED, 1000);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("ratelimit.requests").tag("outcome", "rejected").counter().count())
				.isEqualTo(1.0);
			assertThat(registry.get("ratelimit.decision").tag("store", "caffeine").timer().count()).isEqualTo(1);
			assertThat(registry.get("ratelimit.buckets").tag("policy", "orders").gauge().value()).isEqualTo(1.0);
		});
	}

	@Test
	void gaugesTheHeldRequestsWhereTheRequestPathHoldsThem() {
		this.contextRunner.run((context) -> {
			assertThat(context).doesNotHaveBean(RateLimitHeldRequestsMetrics.class);
			assertThat(context.getBean(MeterRegistry.class).find("ratelimit.shaping.held").gauge()).isNull();
		});
		this.contextRunner.withBean(HeldRequests.class, () -> new HeldRequests(250)).run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("ratelimit.shaping.held").gauge().value()).isZero();
			assertThat(registry.get("ratelimit.shaping.held.max").gauge().value()).isEqualTo(250.0);
		});
	}

	@Test
	void countsReloadsByOutcomeWhereThePoliciesAreReloaded() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(RateLimitReloadMetrics.class));
		this.contextRunner.withBean(PolicyReloads.class, () -> new PolicyReloads(MonotonicClock.SYSTEM)).run((context) -> {
			context.getBean(PolicyReloads.class).rejected(Set.of("ratelimit.policies.orders.shadwo"), List.of());
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("ratelimit.reloads").tag("outcome", "rejected").functionCounter().count())
				.isEqualTo(1.0);
			assertThat(registry.get("ratelimit.reloads").tag("outcome", "accepted").functionCounter().count())
				.isZero();
		});
	}

	@Test
	void metricsReachPrometheusWhenTheUserAddsItsRegistry() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class, PrometheusMetricsExportAutoConfiguration.class,
					RateLimitMetricsAutoConfiguration.class))
			.withBean(RateLimitPolicies.class, TestPolicies::policies)
			.withBean(FixedSnapshotsInspector.class, () -> new FixedSnapshotsInspector("caffeine").add("orders", "free",
					"demo-free-key", 3, fixedWindow(10, 7)))
			.withBean(HeldRequests.class, () -> new HeldRequests(250))
			.run((context) -> {
				RateLimitRequestMetrics metrics = context.getBean(RateLimitRequestMetrics.class);
				metrics.onDecision("orders", "free", "orders-route", "caffeine", Outcome.ALLOWED, 1000);
				metrics.onDelayed("orders", "free", "orders-route", "caffeine", Outcome.DELAYED, 1000, 500_000_000);
				String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
				assertThat(scrape).contains(
						"ratelimit_requests_total{outcome=\"allowed\",policy=\"orders\",route=\"orders-route\",tier=\"free\"} 1.0")
					.contains("ratelimit_requests_total{outcome=\"delayed\",policy=\"orders\",route=\"orders-route\",tier=\"free\"} 1.0")
					.contains("ratelimit_decision_seconds_count{store=\"caffeine\"} 2")
					.contains("ratelimit_shaping_delay_seconds_count{outcome=\"delayed\",policy=\"orders\",route=\"orders-route\",tier=\"free\"} 1")
					.contains("ratelimit_shaping_delay_seconds_sum{outcome=\"delayed\",policy=\"orders\",route=\"orders-route\",tier=\"free\"} 0.5")
					.contains("ratelimit_shaping_delay_seconds_count{outcome=\"shadow-delayed\",policy=\"orders\",route=\"orders-route\",tier=\"free\"} 0")
					.contains("ratelimit_shaping_held 0.0")
					.contains("ratelimit_shaping_held_max 250.0")
					.contains("ratelimit_buckets{policy=\"orders\",store=\"caffeine\"} 1.0")
					.doesNotContain("demo-free-key");
			});
	}

	@Test
	void gaugesTheBreakerAndCountsTheFailedCallsOfEachRedisBackedStore() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
					DataRedisAutoConfiguration.class, DataRedisReactiveAutoConfiguration.class,
					RateLimitAutoConfiguration.class, RedisStoreAutoConfiguration.class,
					RateLimitMetricsAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=" + closedPort(), "ratelimit.store=redis",
					"ratelimit.policies.orders.tiers.anonymous[0].algorithm=fixed-window",
					"ratelimit.policies.orders.tiers.anonymous[0].limit=10",
					"ratelimit.policies.orders.tiers.anonymous[0].window=1m", "ratelimit.policies.search.store=hybrid",
					"ratelimit.policies.search.tiers.anonymous[0].algorithm=fixed-window",
					"ratelimit.policies.search.tiers.anonymous[0].limit=10",
					"ratelimit.policies.search.tiers.anonymous[0].window=1m")
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimitRemoteStoreMetrics.class);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				for (String store : List.of("redis", "hybrid")) {
					assertThat(registry.get(RateLimitRemoteStoreMetrics.CIRCUIT_BREAKER)
						.tag("store", store)
						.gauges()).extracting((gauge) -> gauge.getId().getTag("state"))
						.containsExactlyInAnyOrder("closed", "open", "half-open");
					assertThat(registry.get(RateLimitRemoteStoreMetrics.ERRORS)
						.tag("store", store)
						.tag("cause", "timeout")
						.functionCounter()
						.count()).isZero();
				}
				// Nothing listens on the port: the redis store's start-up PING was refused.
				assertThat(registry.get(RateLimitRemoteStoreMetrics.ERRORS)
					.tag("store", "redis")
					.tag("cause", "error")
					.functionCounter()
					.count()).isGreaterThanOrEqualTo(1.0);
			});
	}

	@Test
	void hasNoRedisMetersWithoutARedisBackedStore() {
		this.contextRunner.run((context) -> {
			assertThat(context).doesNotHaveBean(RateLimitRemoteStoreMetrics.class);
			assertThat(context.getBean(MeterRegistry.class).find(RateLimitRemoteStoreMetrics.CIRCUIT_BREAKER).meters())
				.isEmpty();
		});
	}

	@Test
	void isAbsentWithoutARegistry() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitMetricsAutoConfiguration.class))
			.withBean(RateLimitPolicies.class, TestPolicies::policies)
			.run((context) -> assertThat(context).doesNotHaveBean(RateLimitRequestMetrics.class)
				.doesNotHaveBean(RateLimitBucketMetrics.class));
	}

	@Test
	void gaugesNothingWithoutPolicies() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitMetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.run((context) -> assertThat(context).hasSingleBean(RateLimitRequestMetrics.class)
				.doesNotHaveBean(RateLimitBucketMetrics.class));
	}

	@Test
	void timesObservedDecisionsAheadOfBootsMeterHandlerWhichTimesTheOtherObservations() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimitDecisionMeterObservationHandler.class);
				ObservationRegistry observations = context.getBean(ObservationRegistry.class);
				RateLimitDecisionObservationContext decision = new RateLimitDecisionObservationContext("orders",
						"free", "orders-route", "caffeine");
				Observation observation = RateLimitObservationDocumentation.POLICY_DECISIONS
					.observation(null, new DefaultRateLimitDecisionObservationConvention(), () -> decision,
							observations)
					.start();
				decision.setOutcome(Outcome.ALLOWED);
				observation.stop();
				Observation.createNotStarted("other.work", observations).start().stop();
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get("ratelimit.policy.decisions").tag("outcome", "allowed").timer().count())
					.isEqualTo(1);
				assertThat(registry.find("ratelimit.policy.decisions.active").meters()).isEmpty();
				assertThat(registry.get("other.work").timer().count()).isEqualTo(1);
				assertThat(registry.find("other.work.active").longTaskTimer()).isNotNull();
			});
	}

	@Test
	void backsOffWhenTheUserDefinesTheMetrics() {
		SimpleMeterRegistry own = new SimpleMeterRegistry();
		RateLimitRequestMetrics requestMetrics = new RateLimitRequestMetrics(own);
		RateLimitBucketMetrics bucketMetrics = new RateLimitBucketMetrics(TestPolicies.policies(),
				new BucketStores(List.of(), List.of(new FixedSnapshotsInspector("caffeine"))));
		this.contextRunner.withBean("myRequestMetrics", RateLimitRequestMetrics.class, () -> requestMetrics)
			.withBean("myBucketMetrics", RateLimitBucketMetrics.class, () -> bucketMetrics)
			.run((context) -> {
				assertThat(context).getBean(RateLimitRequestMetrics.class).isSameAs(requestMetrics);
				assertThat(context).getBean(RateLimitBucketMetrics.class).isSameAs(bucketMetrics);
			});
	}

	private static int closedPort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
