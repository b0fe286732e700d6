package dev.ratelimit.metrics;

import java.util.List;

import dev.ratelimit.testsupport.ShapingJudge;
import dev.ratelimit.web.HeldRequests;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitHeldRequestsMetrics}.
 */
class RateLimitHeldRequestsMetricsTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final HeldRequests held = new HeldRequests(3);

	@Test
	void gaugesTheMostRequestsHeldAtOnceAndNoneHeldAtFirstUntagged() {
		new RateLimitHeldRequestsMetrics(this.held).bindTo(this.registry);
		assertThat(this.registry.get(RateLimitHeldRequestsMetrics.HELD_MAX).gauge().value()).isEqualTo(3.0);
		assertThat(held()).isZero();
		assertThat(this.registry.get(RateLimitHeldRequestsMetrics.HELD).gauge().getId().getTags()).isEmpty();
	}

	@Test
	void heldFollowsTheRequestsAJudgeHoldsAndLetsGo() {
		new RateLimitHeldRequestsMetrics(this.held).bindTo(this.registry);
		ShapingJudge judge = new ShapingJudge(this.held, List.of());
		assertThat(judge.request("203.0.113.7").block()).isTrue();
		Disposable second = judge.request("203.0.113.7").subscribe();
		Disposable third = judge.request("203.0.113.7").subscribe();
		assertThat(held()).isEqualTo(2.0);
		second.dispose();
		assertThat(held()).isEqualTo(1.0);
		third.dispose();
		assertThat(held()).isZero();
	}

	private double held() {
		return this.registry.get(RateLimitHeldRequestsMetrics.HELD).gauge().value();
	}

}
