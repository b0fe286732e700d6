package dev.ratelimit.autoconfigure;

import java.util.Map;

import dev.ratelimit.actuate.BucketStoreHealthIndicator;
import dev.ratelimit.store.StoreHealth;
import dev.ratelimit.testsupport.DecideOnlyStore;
import dev.ratelimit.testsupport.FixedSnapshotsInspector;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitHealthContributorAutoConfiguration}.
 */
class RateLimitHealthContributorAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitHealthContributorAutoConfiguration.class));

	@Test
	void singleStoreIsOneIndicatorNamedRatelimit() {
		this.contextRunner.withBean("caffeineStore", FixedSnapshotsInspector.class, () -> new FixedSnapshotsInspector("caffeine"))
			.run((context) -> {
				assertThat(context).hasBean("ratelimitHealthContributor");
				HealthContributor contributor = context.getBean("ratelimitHealthContributor",
						HealthContributor.class);
				assertThat(contributor).isInstanceOf(BucketStoreHealthIndicator.class);
				Health health = ((HealthIndicator) contributor).health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("store", "caffeine");
			});
	}

	@Test
	void severalStoresAreOneIndicatorEachByStoreName() {
		FixedSnapshotsInspector redis = new FixedSnapshotsInspector("redis");
		redis.setHealth(new StoreHealth(false, Map.of("failureMode", "fail-open")));
		this.contextRunner.withBean("caffeineStore", FixedSnapshotsInspector.class, () -> new FixedSnapshotsInspector("caffeine"))
			.withBean("redisStore", FixedSnapshotsInspector.class, () -> redis)
			.run((context) -> {
				CompositeHealthContributor composite = context.getBean("ratelimitHealthContributor",
						CompositeHealthContributor.class);
				assertThat(((HealthIndicator) composite.getContributor("caffeine")).health().getStatus())
					.isEqualTo(Status.UP);
				Health redisHealth = ((HealthIndicator) composite.getContributor("redis")).health();
				assertThat(redisHealth.getStatus()).isEqualTo(Status.DOWN);
				assertThat(redisHealth.getDetails()).containsEntry("failureMode", "fail-open");
			});
	}

	@Test
	void isAbsentWhenDisabled() {
		this.contextRunner.withBean(FixedSnapshotsInspector.class, () -> new FixedSnapshotsInspector("caffeine"))
			.withPropertyValues("management.health.ratelimit.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("ratelimitHealthContributor"));
	}

	@Test
	void leavesOutStoresThatOnlyDecide() {
		this.contextRunner.withBean("caffeineStore", FixedSnapshotsInspector.class, () -> new FixedSnapshotsInspector("caffeine"))
			.withBean("ownStore", DecideOnlyStore.class, () -> new DecideOnlyStore("redis"))
			.run((context) -> assertThat(context.getBean("ratelimitHealthContributor"))
				.isInstanceOf(BucketStoreHealthIndicator.class));
	}

	@Test
	void isAbsentWhenNoStoreCanBeInspected() {
		this.contextRunner.withBean("ownStore", DecideOnlyStore.class, () -> new DecideOnlyStore("redis"))
			.run((context) -> assertThat(context).doesNotHaveBean("ratelimitHealthContributor"));
	}

	@Test
	void isAbsentWithoutStores() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean("ratelimitHealthContributor"));
	}

	@Test
	void backsOffWhenTheUserDefinesARatelimitHealthIndicator() {
		HealthIndicator own = () -> Health.up().build();
		this.contextRunner.withBean(FixedSnapshotsInspector.class, () -> new FixedSnapshotsInspector("caffeine"))
			.withBean("ratelimitHealthIndicator", HealthIndicator.class, () -> own)
			.run((context) -> assertThat(context).doesNotHaveBean("ratelimitHealthContributor")
				.getBean("ratelimitHealthIndicator")
				.isSameAs(own));
	}

}
