package dev.ratelimit.store.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;

import dev.ratelimit.metrics.RateLimitRemoteStoreMetrics;
import dev.ratelimit.support.MonotonicClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RateLimitRemoteStoreMetrics} over a store whose Redis refuses the connection:
 * the breaker's state as the store's guard sees it, and its failed calls by cause.
 */
class RemoteStoreMetricsTests {

	private final OwnClients clients = new OwnClients();

	@AfterEach
	void closeClients() {
		this.clients.close();
	}

	@Test
	void theBreakerReadsOneForItsStateAndTheFailedCallsAreCountedByCause() {
		CircuitBreaker breaker = new CircuitBreaker(MonotonicClock.SYSTEM, 2, Duration.ofMinutes(1).toNanos());
		RemoteFailureGuard guard = new RemoteFailureGuard("redis", FailureMode.DENY, breaker, Duration.ofSeconds(1),
				null, MonotonicClock.SYSTEM);
		RedisBucketStore store = new RedisBucketStore(new BucketScript(this.clients.template(closedPort()), "rl"),
				Duration.ofSeconds(1), guard, MonotonicClock.SYSTEM, Duration.ofMinutes(1));
		MeterRegistry registry = new SimpleMeterRegistry();
		new RateLimitRemoteStoreMetrics(List.of(store)).bindTo(registry);
		assertBreaker(registry, "closed");
		assertErrors(registry, 0, 0);
		// Start-up's PING is refused: one failure, below the threshold.
		store.afterSingletonsInstantiated();
		assertBreaker(registry, "closed");
		assertErrors(registry, 0, 1);
		guard.recordFailure(new TimeoutException());
		assertBreaker(registry, "open");
		assertErrors(registry, 1, 1);
		guard.onSuccess();
		assertBreaker(registry, "closed");
		assertErrors(registry, 1, 1);
	}

	private static void assertBreaker(MeterRegistry registry, String state) {
		for (CircuitBreaker.State each : CircuitBreaker.State.values()) {
			assertThat(registry.get(RateLimitRemoteStoreMetrics.CIRCUIT_BREAKER)
				.tag("store", "redis")
				.tag("state", each.displayName())
				.gauge()
				.value()).as(each.displayName()).isEqualTo(each.displayName().equals(state) ? 1.0 : 0.0);
		}
	}

	private static void assertErrors(MeterRegistry registry, long timeouts, long errors) {
		assertThat(registry.get(RateLimitRemoteStoreMetrics.ERRORS).tag("cause", "timeout").functionCounter().count())
			.isEqualTo(timeouts);
		assertThat(registry.get(RateLimitRemoteStoreMetrics.ERRORS).tag("cause", "error").functionCounter().count())
			.isEqualTo(errors);
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
