package dev.ratelimit.algorithm;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The concurrency limit: slots of requests in flight, one per request whatever its
 * cost, given back by their release and by nothing else.
 */
class ConcurrencyTests {

	private static final long SECOND = 1_000_000_000L;

	private final Concurrency limit = new Concurrency(2);

	private final LimitState state = this.limit.newState(0);

	@Test
	void admitsItsLimitInFlightWhateverTheirCostAndRefusesTheNext() {
		Decision first = acquire(5);
		assertThat(first.allowed()).isTrue();
		assertThat(first.remaining()).isEqualTo(1);
		assertThat(acquire(1).remaining()).isZero();
		Decision refused = acquire(1);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.remaining()).isZero();
		assertThat(refused.limit()).isEqualTo(2);
		// No clock says when a slot frees: the client is asked back in a second.
		assertThat(refused.retryAfterNanos()).isEqualTo(SECOND);
		assertThat(this.state.describe(0)).containsEntry("inFlight", 2L);
	}

	@Test
	void aReleaseFreesASlotAndTimeDoesNot() {
		acquire(1);
		acquire(1);
		assertThat(this.state.probe(3600 * SECOND, 1).allowed()).isFalse();
		this.limit.release(this.state, 3600 * SECOND);
		assertThat(acquire(1).allowed()).isTrue();
		assertThat(acquire(1).allowed()).isFalse();
	}

	@Test
	void releasingMoreThanWasTakenNeverGoesBelowZero() {
		acquire(1);
		this.limit.release(this.state, 0);
		this.limit.release(this.state, 0);
		assertThat(this.state.describe(0)).containsEntry("inFlight", 0L);
		assertThat(acquire(1).remaining()).isEqualTo(1);
		assertThat(acquire(1).remaining()).isZero();
		assertThat(acquire(1).allowed()).isFalse();
	}

	@Test
	void aPeekTakesNoSlot() {
		acquire(1);
		acquire(1);
		Decision peek = this.state.probe(0, 0);
		assertThat(peek.allowed()).isTrue();
		assertThat(peek.remaining()).isZero();
		this.state.commit(0, 0);
		assertThat(this.state.describe(0)).containsEntry("inFlight", 2L);
	}

	@Test
	void unitsAreNotWhatItCounts() {
		acquire(1);
		this.limit.charge(this.state, 0, 100);
		this.limit.refund(this.state, 0, 100, 0);
		assertThat(this.state.describe(0)).containsEntry("inFlight", 1L);
	}

	@Test
	void theRequestsInFlightCarryOverAnyLimitAndAnotherAlgorithmsStateDoesNot() {
		Concurrency wider = new Concurrency(5);
		LimitState before = wider.newState(0);
		for (int i = 0; i < 3; i++) {
			wider.tryAcquire(before, 0, 1);
		}
		LimitState after = this.limit.newState(0);
		this.limit.carryOver(wider, before, after, 0);
		assertThat(after.describe(0)).containsEntry("inFlight", 3L);
		// Above the new limit: refused until two have ended.
		this.limit.release(after, 0);
		assertThat(after.probe(0, 1).allowed()).isFalse();
		this.limit.release(after, 0);
		assertThat(after.probe(0, 1).allowed()).isTrue();
		LimitState fresh = this.limit.newState(0);
		this.limit.carryOver(new FixedWindow(5, Duration.ofMinutes(1)), new FixedWindow(5, Duration.ofMinutes(1))
			.newState(0), fresh, 0);
		assertThat(fresh.describe(0)).containsEntry("inFlight", 0L);
	}

	@Test
	void withNoSlotTakenItIsAsGoodAsNewAtOnce() {
		assertThat(this.limit.idleTimeout()).isZero();
		assertThat(this.limit.window()).isEqualTo(Duration.ofSeconds(1));
		assertThat(this.limit.countsInFlight()).isTrue();
		assertThat(new FixedWindow(5, Duration.ofMinutes(1)).countsInFlight()).isFalse();
	}

	private Decision acquire(long cost) {
		return this.limit.tryAcquire(this.state, 0, cost);
	}

}
