package dev.ratelimit.store.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.support.MonotonicClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RemoteFailureGuard}: its background probe, which alone closes a breaker
 * nobody sends requests through (the breaker here stays open an hour), and whether a
 * store it guards is serving while Redis fails.
 */
class RemoteFailureGuardTests {

	private static final Duration PROBE_INTERVAL = Duration.ofMillis(20);

	private final AtomicInteger pings = new AtomicInteger();

	private RemoteFailureGuard guard;

	@AfterEach
	void stopProbing() {
		if (this.guard != null) {
			this.guard.stopProbing();
		}
	}

	@Test
	void aSuccessfulProbeClosesTheOpenBreaker() {
		this.guard = openGuard(FailureMode.ALLOW);
		this.guard.startProbing(Mono.fromRunnable(this.pings::incrementAndGet));
		Pause.untilRecovered("the probe closes the breaker", this.guard::up);
		assertThat(this.guard.healthDetails()).containsEntry("remote", "UP")
			.containsEntry("circuitBreaker", "closed")
			.doesNotContainKey("lastError");
	}

	@Test
	void aFailingProbeKeepsTheBreakerOpenAndSaysWhy() {
		this.guard = openGuard(FailureMode.ALLOW);
		this.guard.startProbing(Mono.defer(() -> {
			this.pings.incrementAndGet();
			return Mono.error(new IOException("Connection refused by the probe"));
		}));
		Pause.untilRecovered("three probes", () -> this.pings.get() >= 3);
		assertThat(this.guard.up()).isFalse();
		assertThat(this.guard.healthDetails()).containsEntry("remote", "DOWN")
			.containsEntry("circuitBreaker", "open")
			.containsEntry("lastError", "IOException: Connection refused by the probe");
	}

	/**
	 * One failed call in a closed breaker (below its threshold) is enough for the
	 * store to be not up: the probe heals that too.
	 */
	@Test
	void aSuccessfulProbeClearsAFailureBelowTheThreshold() {
		CircuitBreaker breaker = new CircuitBreaker(MonotonicClock.SYSTEM, 5, Duration.ofHours(1).toNanos());
		this.guard = new RemoteFailureGuard("redis", FailureMode.ALLOW, breaker, PROBE_INTERVAL, null,
				MonotonicClock.SYSTEM);
		this.guard.recordFailure(new IOException("one timed-out call"));
		assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
		assertThat(this.guard.up()).isFalse();
		this.guard.startProbing(Mono.fromRunnable(this.pings::incrementAndGet));
		Pause.untilRecovered("the probe clears the failure", this.guard::up);
	}

	/**
	 * While the store is up the probe sends nothing: twenty intervals are watched for a
	 * PING that must not come, then one failure starts the probing.
	 */
	@Test
	void theProbeCallsRedisOnlyWhileTheStoreIsNotUp() {
		this.guard = TestStores.guard("redis", FailureMode.ALLOW, 1, Duration.ofHours(1), PROBE_INTERVAL);
		this.guard.startProbing(Mono.fromRunnable(this.pings::incrementAndGet));
		Pause.sleep(PROBE_INTERVAL.multipliedBy(20).toMillis());
		assertThat(this.pings).hasValue(0);
		this.guard.recordFailure(new IOException("Redis went away"));
		Pause.untilRecovered("the probe closes the breaker", this.guard::up);
		assertThat(this.pings).hasValue(1);
	}

	@Test
	void stoppedProbingSendsNothingMore() {
		this.guard = openGuard(FailureMode.ALLOW);
		this.guard.startProbing(Mono.defer(() -> {
			this.pings.incrementAndGet();
			return Mono.error(new IOException("down"));
		}));
		Pause.untilRecovered("a probe", () -> this.pings.get() >= 1);
		assertThat(this.guard.probing()).isTrue();
		this.guard.stopProbing();
		assertThat(this.guard.probing()).isFalse();
		int sent = this.pings.get();
		Pause.sleep(PROBE_INTERVAL.multipliedBy(20).toMillis());
		assertThat(this.pings).hasValue(sent);
	}

	@Test
	void allowAndLocalServeWhileRedisFailsDenyDoesNot() {
		for (FailureMode mode : FailureMode.values()) {
			RemoteFailureGuard guard = openGuard(mode);
			assertThat(guard.up()).isFalse();
			assertThat(guard.serving()).as(mode.configName()).isEqualTo(mode != FailureMode.DENY);
			guard.onSuccess();
			assertThat(guard.serving()).as(mode.configName()).isTrue();
		}
	}

	/**
	 * A guard whose breaker one failure opened, for an hour: only a probe closes it
	 * within a test.
	 */
	private static RemoteFailureGuard openGuard(FailureMode mode) {
		RemoteFailureGuard guard = TestStores.guard("redis", mode, 1, Duration.ofHours(1), PROBE_INTERVAL);
		guard.recordFailure(new IOException("Connection refused"));
		assertThat(guard.healthDetails()).containsEntry("circuitBreaker", "open");
		return guard;
	}

}
