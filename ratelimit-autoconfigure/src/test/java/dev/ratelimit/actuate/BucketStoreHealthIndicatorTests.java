package dev.ratelimit.actuate;

import java.util.Map;

import dev.ratelimit.store.StoreHealth;
import dev.ratelimit.testsupport.FixedSnapshotsInspector;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link BucketStoreHealthIndicator}.
 */
class BucketStoreHealthIndicatorTests {

	@Test
	void upStoreIsUpWithItsNameAndDetails() {
		FixedSnapshotsInspector store = new FixedSnapshotsInspector("caffeine");
		store.setHealth(new StoreHealth(true, Map.of("buckets", 12L)));
		Health health = new BucketStoreHealthIndicator(store).health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("store", "caffeine").containsEntry("buckets", 12L);
	}

	@Test
	void storeInItsFailureModeIsDownWithTheFailureMode() {
		FixedSnapshotsInspector store = new FixedSnapshotsInspector("redis");
		store.setHealth(new StoreHealth(false, Map.of("failureMode", "fail-open", "remote", "connection refused")));
		Health health = new BucketStoreHealthIndicator(store).health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("store", "redis")
			.containsEntry("failureMode", "fail-open")
			.containsEntry("remote", "connection refused");
	}

	/**
	 * A store failing open ({@code on-failure} {@code allow} or {@code local}) still
	 * serves: UP, so that {@code /actuator/health} does not take the gateway out of
	 * service, while its details say what is down.
	 */
	@Test
	void storeServingThroughItsFailureModeIsUpWithTheOutageInItsDetails() {
		FixedSnapshotsInspector store = new FixedSnapshotsInspector("redis");
		store.setHealth(new StoreHealth(false, true,
				Map.of("remote", "DOWN", "failureMode", "allow", "circuitBreaker", "open")));
		Health health = new BucketStoreHealthIndicator(store).health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("store", "redis")
			.containsEntry("remote", "DOWN")
			.containsEntry("failureMode", "allow")
			.containsEntry("circuitBreaker", "open");
	}

	@Test
	void storeWhoseHealthCheckThrowsIsDownWithTheError() {
		FixedSnapshotsInspector store = new FixedSnapshotsInspector("redis") {

			@Override
			public StoreHealth health() {
				throw new IllegalStateException("boom");
			}

		};
		Health health = new BucketStoreHealthIndicator(store).health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("error", "java.lang.IllegalStateException: boom");
	}

}
