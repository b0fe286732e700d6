package dev.ratelimit.support;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class EpochAnchoredClockTests {

	private static final long SECOND = 1_000_000_000L;

	@Test
	void readsTheWallClockOnceThenAdvancesWithTheMonotonicSource() {
		AtomicLong monotonic = new AtomicLong(-7_000 * SECOND);
		long midnight = Instant.parse("2026-03-15T00:00:00Z").getEpochSecond() * SECOND;
		EpochAnchoredClock clock = new EpochAnchoredClock(midnight - 3 * SECOND, monotonic::get);
		assertThat(clock.nanoTime()).isEqualTo(midnight - 3 * SECOND);
		monotonic.addAndGet(3 * SECOND);
		// Whatever the wall clock says now, a day's window turns exactly here.
		assertThat(clock.nanoTime()).isEqualTo(midnight);
		assertThat(Math.floorMod(clock.nanoTime(), Duration.ofDays(1).toNanos())).isZero();
	}

	@Test
	void systemClockCountsFromTheUnixEpoch() {
		long wallSeconds = System.currentTimeMillis() / 1000;
		long clockSeconds = MonotonicClock.SYSTEM.nanoTime() / SECOND;
		// Anchored once at start-up: only a wall-clock change since then (or a slow
		// machine) separates the two, never years.
		assertThat(clockSeconds).isBetween(wallSeconds - 3600, wallSeconds + 3600);
	}

}
