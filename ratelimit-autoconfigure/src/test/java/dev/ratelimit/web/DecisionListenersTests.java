package dev.ratelimit.web;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.web.RateLimitListener.RouteTierListener;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.server.MockServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a route's filter tells its listeners of decisions: each listener bound once per
 * tier of the route when the route is built, then told of each decision under that tier.
 */
class DecisionListenersTests {

	private final RequestPathFixture fixture = new RequestPathFixture();

	private final List<String> bindings = new ArrayList<>();

	private final List<String> told = new ArrayList<>();

	@Test
	void eachTierOfARouteIsBoundOnceWhenTheRouteIsBuiltAndToldOfItsDecisions() {
		this.fixture.listeners.add(new BindingListener());
		RequestJudge judge = this.fixture.judge();
		assertThat(this.bindings).containsExactlyInAnyOrder("orders/anonymous/orders-route/caffeine",
				"orders/pro/orders-route/caffeine");
		this.fixture.run(judge, MockServerWebExchange.from(RequestPathFixture.get()));
		this.fixture.run(judge,
				MockServerWebExchange.from(RequestPathFixture.get().header("X-API-Key", "pro-key")));
		for (int i = 0; i < 2; i++) {
			this.fixture.run(judge, MockServerWebExchange.from(RequestPathFixture.get()));
		}
		assertThat(this.bindings).hasSize(2);
		assertThat(this.told).containsExactly("anonymous allowed", "pro allowed", "anonymous allowed",
				"anonymous rejected");
		assertThat(this.fixture.outcomes).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED, Outcome.ALLOWED,
				Outcome.REJECTED);
	}

	@Test
	void aBoundListenerThatThrowsNeitherStopsTheOthersNorTheRequest() {
		this.fixture.listeners.add(new RateLimitListener() {

			@Override
			public void onDecision(String policy, String tier, String routeId, String store, Outcome outcome,
					long decisionNanos) {
			}

			@Override
			public RouteTierListener forRouteTier(String policy, String tier, String routeId, String store) {
				return (outcome, decisionNanos) -> {
					throw new IllegalStateException("bug");
				};
			}

		});
		this.fixture.listeners.add(new BindingListener());
		this.fixture.run(RequestPathFixture.get());
		assertThat(this.fixture.forwarded).hasSize(1);
		assertThat(this.told).containsExactly("anonymous allowed");
	}

	/**
	 * Records its bindings, and what each bound listener is told; never told anything
	 * unbound.
	 */
	private final class BindingListener implements RateLimitListener {

		@Override
		public void onDecision(String policy, String tier, String routeId, String store, Outcome outcome,
				long decisionNanos) {
			throw new AssertionError("a route's filter tells the listener bound to its tier");
		}

		@Override
		public RouteTierListener forRouteTier(String policy, String tier, String routeId, String store) {
			DecisionListenersTests.this.bindings.add(policy + "/" + tier + "/" + routeId + "/" + store);
			return (outcome, decisionNanos) -> DecisionListenersTests.this.told.add(tier + " " + outcome.tagValue());
		}

	}

}
