package dev.ratelimit.store.redis;

import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.store.redis.CircuitBreaker.State;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CircuitBreaker} on a clock moved by hand.
 */
class CircuitBreakerTests {

	private final AtomicLong now = new AtomicLong(1_000);

	private final CircuitBreaker breaker = new CircuitBreaker(this.now::get, 3, 500);

	@Test
	void opensAfterTheThresholdOfConsecutiveFailures() {
		this.breaker.onFailure();
		this.breaker.onFailure();
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		assertThat(this.breaker.allowsCall()).isTrue();
		this.breaker.onFailure();
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		assertThat(this.breaker.allowsCall()).isFalse();
	}

	@Test
	void aSuccessResetsTheCount() {
		this.breaker.onFailure();
		this.breaker.onFailure();
		this.breaker.onSuccess();
		this.breaker.onFailure();
		this.breaker.onFailure();
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
	}

	@Test
	void letsOneProbeThroughOnceOpenLongEnough() {
		open();
		this.now.addAndGet(499);
		assertThat(this.breaker.allowsCall()).isFalse();
		this.now.addAndGet(1);
		assertThat(this.breaker.allowsCall()).isTrue();
		assertThat(this.breaker.state()).isEqualTo(State.HALF_OPEN);
		assertThat(this.breaker.allowsCall()).as("a second caller while the probe runs").isFalse();
	}

	@Test
	void aSuccessfulProbeCloses() {
		open();
		this.now.addAndGet(500);
		this.breaker.allowsCall();
		this.breaker.onSuccess();
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		assertThat(this.breaker.allowsCall()).isTrue();
	}

	@Test
	void aFailedProbeReopensForAnotherOpenDuration() {
		open();
		this.now.addAndGet(500);
		this.breaker.allowsCall();
		this.breaker.onFailure();
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		this.now.addAndGet(499);
		assertThat(this.breaker.allowsCall()).isFalse();
		this.now.addAndGet(1);
		assertThat(this.breaker.allowsCall()).isTrue();
	}

	@Test
	void aProbeThatNeverReportsIsReplacedAfterAnotherOpenDuration() {
		open();
		this.now.addAndGet(500);
		assertThat(this.breaker.allowsCall()).isTrue();
		this.now.addAndGet(500);
		assertThat(this.breaker.allowsCall()).isTrue();
	}

	private void open() {
		for (int i = 0; i < 3; i++) {
			this.breaker.onFailure();
		}
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
	}

}
