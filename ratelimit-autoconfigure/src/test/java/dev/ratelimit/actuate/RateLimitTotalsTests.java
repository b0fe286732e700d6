package dev.ratelimit.actuate;

import dev.ratelimit.actuate.RateLimitTotals.Totals;
import dev.ratelimit.testsupport.Concurrently;
import dev.ratelimit.web.Outcome;
import dev.ratelimit.web.RateLimitListener.RouteTierListener;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitTotals}.
 */
class RateLimitTotalsTests {

	private final RateLimitTotals totals = new RateLimitTotals();

	@Test
	void countsEachOutcomePerPolicyAcrossTiersAndRoutes() {
		this.totals.onDecision("orders", "free", "a", "caffeine", Outcome.ALLOWED, 1);
		this.totals.onDecision("orders", "pro", "b", "caffeine", Outcome.ALLOWED, 1);
		this.totals.onDecision("orders", "free", "a", "caffeine", Outcome.REJECTED, 1);
		this.totals.onDecision("orders", "free", "a", "redis", Outcome.ERROR, 1);
		this.totals.onDecision("search", "free", "a", "caffeine", Outcome.SHADOW_REJECTED, 1);
		this.totals.onDecision("search", "free", "a", "caffeine", Outcome.MISSING_KEY, 0);
		assertThat(this.totals.totals("orders")).isEqualTo(new Totals(2, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0));
		assertThat(this.totals.totals("search")).isEqualTo(new Totals(0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0));
	}

	@Test
	void countsExemptRequestsApartFromAllowed() {
		RouteTierListener internal = this.totals.forRouteTier("orders", "internal", "a", "caffeine");
		internal.onDecision(Outcome.EXEMPT, 0);
		internal.onDecision(Outcome.EXEMPT, 0);
		this.totals.onDecision("orders", "free", "a", "caffeine", Outcome.ALLOWED, 1);
		assertThat(this.totals.totals("orders")).isEqualTo(new Totals(1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2));
	}

	@Test
	void countsHoldsWhatAShadowPolicyWouldHaveHeldAndFullHoldsApartFromAllowed() {
		this.totals.onDelayed("payments", "free", "a", "caffeine", Outcome.DELAYED, 1, 500_000_000);
		this.totals.onDelayed("payments", "free", "a", "caffeine", Outcome.DELAYED, 1, 1_000_000_000);
		this.totals.onDecision("payments", "free", "a", "caffeine", Outcome.ALLOWED, 1);
		this.totals.onDecision("payments", "free", "a", "caffeine", Outcome.HOLDS_FULL, 1);
		this.totals.onDelayed("audit", "free", "a", "caffeine", Outcome.SHADOW_DELAYED, 1, 250_000_000);
		assertThat(this.totals.totals("payments")).isEqualTo(new Totals(1, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0));
		assertThat(this.totals.totals("audit")).isEqualTo(new Totals(0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0));
	}

	@Test
	void aRouteTiersListenerCountsHoldsIntoItsPolicysTotals() {
		RouteTierListener free = this.totals.forRouteTier("payments", "free", "a", "caffeine");
		free.onDelayed(Outcome.DELAYED, 1, 500_000_000);
		free.onDelayed(Outcome.SHADOW_DELAYED, 1, 500_000_000);
		free.onDecision(Outcome.HOLDS_FULL, 1);
		assertThat(this.totals.totals("payments")).isEqualTo(new Totals(0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0));
	}

	@Test
	void aRouteTiersListenerCountsIntoItsPolicysTotals() {
		RouteTierListener free = this.totals.forRouteTier("orders", "free", "a", "caffeine");
		RouteTierListener pro = this.totals.forRouteTier("orders", "pro", "b", "caffeine");
		free.onDecision(Outcome.ALLOWED, 1);
		pro.onDecision(Outcome.REJECTED, 1);
		this.totals.onDecision("orders", "free", "a", "caffeine", Outcome.ALLOWED, 1);
		assertThat(this.totals.totals("orders")).isEqualTo(new Totals(2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
		assertThat(this.totals.totals("search")).isEqualTo(new Totals(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
	}

	@Test
	void concurrentDecisionsAreAllCounted() throws Exception {
		int threads = 8;
		int decisionsPerThread = 2_000;
		Concurrently.run(threads, (thread) -> {
			Outcome outcome = (thread % 2 == 0) ? Outcome.ALLOWED : Outcome.REJECTED;
			for (int i = 0; i < decisionsPerThread; i++) {
				this.totals.onDecision("orders", "free", "a", "caffeine", outcome, 1);
			}
		});
		long half = (long) threads / 2 * decisionsPerThread;
		assertThat(this.totals.totals("orders")).isEqualTo(new Totals(half, half, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
	}

	@Test
	void policyThatDecidedNothingHasZeroTotals() {
		assertThat(this.totals.totals("orders")).isEqualTo(new Totals(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
	}

}
