package dev.ratelimit.store;

import java.util.List;

import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.testsupport.DecideOnlyStore;
import dev.ratelimit.testsupport.FixedSnapshotsInspector;
import dev.ratelimit.testsupport.TestPolicies;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link BucketStores}.
 */
class BucketStoresTests {

	private static final RateLimitPolicies POLICIES = TestPolicies.policies();

	private static final RateLimitPolicy ORDERS = POLICIES.policy("orders");

	@Test
	void aWholeStoreIsFoundByNameOnBothPorts() {
		CaffeineBucketStore caffeine = new CaffeineBucketStore(MonotonicClock.SYSTEM, 10);
		BucketStores stores = new BucketStores(List.of(caffeine), List.of(caffeine));
		assertThat(stores.decider(ORDERS)).isSameAs(caffeine);
		assertThat(stores.inspector(ORDERS)).isSameAs(caffeine);
		assertThat(stores.inspectors()).containsExactly(caffeine);
		assertThat(stores.missingStores(POLICIES)).isEmpty();
	}

	@Test
	void aStoreThatOnlyDecidesServesTheFilterAndHasNothingToInspect() {
		DecideOnlyStore decideOnly = new DecideOnlyStore("caffeine");
		BucketStores stores = new BucketStores(List.of(decideOnly), List.of());
		assertThat(stores.decider(ORDERS)).isSameAs(decideOnly);
		assertThat(stores.inspector(ORDERS)).isNull();
		assertThat(stores.inspectors()).isEmpty();
		assertThat(stores.missingStores(POLICIES)).isEmpty();
		assertThat(BucketStores.notInspectable(ORDERS)).isEqualTo(
				"the caffeine store decides requests but cannot be inspected (it implements no BucketInspector)");
	}

	@Test
	void aMissingStoreIsOneConfigurationProblemNamingThePolicyAndTheAvailableStores() {
		BucketStores stores = new BucketStores(List.of(new DecideOnlyStore("redis")),
				List.of(new FixedSnapshotsInspector("hybrid")));
		String problem = "ratelimit.policies.orders.store (or ratelimit.store): was caffeine, must name an available "
				+ "store (available: [hybrid, redis]); the redis and hybrid stores need "
				+ "spring-boot-starter-data-redis-reactive and a reachable Redis (spring.data.redis.*), the caffeine "
				+ "store needs Caffeine on the classpath";
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> stores.decider(ORDERS))
			.satisfies((ex) -> assertThat(ex.getProblems()).singleElement()
				.satisfies((p) -> assertThat(p.describe()).isEqualTo(problem)));
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> stores.inspector(ORDERS))
			.withMessageContaining(problem);
		assertThat(stores.missingStores(POLICIES)).extracting((p) -> p.property())
			.containsExactlyInAnyOrder("ratelimit.policies.orders.store (or ratelimit.store)",
					"ratelimit.policies.search.store (or ratelimit.store)");
	}

	@Test
	void noStoresAtAllAreNamedNone() {
		BucketStores stores = new BucketStores(List.of(), List.of());
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> stores.decider(ORDERS))
			.withMessageContaining("(available: none)");
	}

	@Test
	void twoDifferentStoresWithOneNameAreRejected() {
		assertThatIllegalStateException()
			.isThrownBy(() -> new BucketStores(List.of(),
					List.of(new FixedSnapshotsInspector("caffeine"), new FixedSnapshotsInspector("caffeine"))))
			.withMessageContaining("Two rate limit stores are named 'caffeine'");
		assertThatIllegalStateException()
			.isThrownBy(() -> new BucketStores(List.of(new DecideOnlyStore("redis"), new DecideOnlyStore("redis")),
					List.of()))
			.withMessageContaining("'redis'");
	}

}
