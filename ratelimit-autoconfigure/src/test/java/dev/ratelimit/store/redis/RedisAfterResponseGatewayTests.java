package dev.ratelimit.store.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.e2e.AfterResponseGatewayScenarios;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AfterResponseGatewayScenarios} on an embedded Redis, and two gateways on it
 * sharing one client's slots in flight.
 */
class RedisAfterResponseGatewayTests extends AfterResponseGatewayScenarios {

	private TestRedis redis;

	@Override
	protected List<String> storeProperties() {
		if (this.redis == null) {
			this.redis = TestRedis.startEmbedded();
		}
		return this.redis.storeProperties();
	}

	@Override
	protected void stopStore() {
		this.redis.close();
	}

	@Test
	void twoGatewaysHoldOneClientToItsSlotsInFlightTogether() {
		try (ConfigurableApplicationContext other = startAnotherGateway()) {
			int otherPort = Integer.parseInt(other.getEnvironment().getProperty("local.server.port"));
			int arrived = this.slow.arrived();
			CompletableFuture<Answer> here = getLater("/slots/slow/here", "fleet-client");
			CompletableFuture<Answer> there = getLater(otherPort, "/slots/slow/there", "fleet-client");
			awaitUntil("both in flight at the upstream", () -> this.slow.arrived() >= arrived + 2);
			assertThat(inFlight("slots", "fleet-client")).isEqualTo(2);
			assertThat(get("/slots/fast/fleet", "fleet-client").status()).isEqualTo(429);
			assertThat(getLater(otherPort, "/slots/fast/fleet", "fleet-client").join().status()).isEqualTo(429);
			assertThat(this.upstream.hits("/slots/fast/fleet")).isZero();
			this.slow.releaseOne();
			this.slow.releaseOne();
			assertThat(here.join().status()).isEqualTo(200);
			assertThat(there.join().status()).isEqualTo(200);
			awaitUntil("both slots back", () -> inFlight("slots", "fleet-client") == 0);
			assertThat(getLater(otherPort, "/slots/fast/fleet", "fleet-client").join().status()).isEqualTo(200);
		}
	}

}
