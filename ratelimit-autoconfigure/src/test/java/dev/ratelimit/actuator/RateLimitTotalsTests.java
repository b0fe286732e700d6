package dev.ratelimit.actuator;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.ratelimit.actuator.RateLimitTotals.Totals;
import dev.ratelimit.gateway.Outcome;
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
		assertThat(this.totals.totals("orders")).isEqualTo(new Totals(2, 1, 0, 1));
		assertThat(this.totals.totals("search")).isEqualTo(new Totals(0, 0, 1, 0));
	}

	@Test
	void concurrentDecisionsAreAllCounted() throws Exception {
		int threads = 8;
		int decisionsPerThread = 2_000;
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> done = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Outcome outcome = (t % 2 == 0) ? Outcome.ALLOWED : Outcome.REJECTED;
			done.add(executor.submit(() -> {
				start.await();
				for (int i = 0; i < decisionsPerThread; i++) {
					this.totals.onDecision("orders", "free", "a", "caffeine", outcome, 1);
				}
				return null;
			}));
		}
		start.countDown();
		for (Future<?> future : done) {
			future.get();
		}
		executor.shutdown();
		long half = (long) threads / 2 * decisionsPerThread;
		assertThat(this.totals.totals("orders")).isEqualTo(new Totals(half, half, 0, 0));
	}

	@Test
	void policyThatDecidedNothingHasZeroTotals() {
		assertThat(this.totals.totals("orders")).isEqualTo(new Totals(0, 0, 0, 0));
	}

}
