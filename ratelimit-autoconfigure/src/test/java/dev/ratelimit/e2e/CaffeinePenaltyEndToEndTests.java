package dev.ratelimit.e2e;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.support.ManualClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PenaltyGatewayScenarios} on the in-memory store, on the gateway's clock moved
 * by hand: a block ends exactly at its end, the next breach serves the next step, and a
 * client is forgiven exactly a day after its block.
 */
class CaffeinePenaltyEndToEndTests extends PenaltyGatewayScenarios {

	@Override
	protected List<String> storeProperties() {
		return List.of("ratelimit.store=caffeine");
	}

	@Override
	protected void letTheBucketRefill(String client) {
		clock().advance(Duration.ofSeconds(2));
	}

	@Test
	void aBlockEndsExactlyAtItsEndAndEscalatesUntilTheClientIsForgiven() {
		String client = "escalating";
		clock().advanceToMultipleOf(Duration.ofSeconds(1));
		assertThat(breach(client).header("Retry-After")).isEqualTo("3600");
		clock().advance(Duration.ofHours(1).minusNanos(1));
		Answer last = get(client);
		assertThat(last.status()).isEqualTo(429);
		assertThat(last.header("Retry-After")).isEqualTo("1");
		clock().advance(Duration.ofNanos(1));
		assertThat(get(client).status()).isEqualTo(200);
		assertThat(breach(client).header("Retry-After")).as("the second step").isEqualTo("7200");
		clock().advance(Duration.ofHours(2).plusDays(1).minusNanos(1));
		assertThat(breach(client).header("Retry-After")).as("not forgiven yet: the last step again")
			.isEqualTo("7200");
		clock().advance(Duration.ofHours(2).plusDays(1));
		assertThat(breach(client).header("Retry-After")).as("forgiven: the first step").isEqualTo("3600");
	}

	private ManualClock clock() {
		return bean(ManualClock.class);
	}

}
