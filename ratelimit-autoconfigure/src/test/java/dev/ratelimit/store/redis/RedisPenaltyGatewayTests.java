package dev.ratelimit.store.redis;

import java.util.List;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.e2e.PenaltyGatewayScenarios;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PenaltyGatewayScenarios} on an embedded Redis, by its time, and two gateways on
 * it: a breach on one blocks the client on the other, which lists and lifts the block for
 * both.
 */
class RedisPenaltyGatewayTests extends PenaltyGatewayScenarios {

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

	/**
	 * Its one-second window passes on Redis's clock: the actuator shows the whole limit,
	 * or no bucket at all once it expired, as good as new.
	 */
	@Override
	protected void letTheBucketRefill(String client) {
		awaitUntil("the bucket of " + client + " refilled", () -> JsonPath
			.<List<Integer>>read(blocks(client), "$.buckets[*].limits[0].remaining")
			.stream()
			.allMatch((remaining) -> remaining == 2));
	}

	@Test
	void aBreachOnOneGatewayBlocksTheClientOnTheOther() {
		try (ConfigurableApplicationContext other = startAnotherGateway()) {
			int otherPort = Integer.parseInt(other.getEnvironment().getProperty("local.server.port"));
			String client = "fleet";
			assertThat(breach(otherPort, client).header("Retry-After")).isEqualTo("3600");
			Answer here = get(client);
			assertThat(here.status()).isEqualTo(429);
			assertThat(Long.parseLong(here.header("Retry-After"))).isBetween(3590L, 3600L);
			assertThat(here.header("RateLimit-Remaining")).isNull();
			assertThat(JsonPath.<List<Object>>read(blocks(client), "$.blocks")).hasSize(1);
			lift(client).expectStatus().isNoContent();
			letTheBucketRefill(client);
			assertThat(get(otherPort, client).status()).isEqualTo(200);
		}
	}

}
