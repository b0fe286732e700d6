package dev.ratelimit.metrics;

import java.util.concurrent.TimeUnit;

import dev.ratelimit.web.DefaultRateLimitDecisionObservationConvention;
import dev.ratelimit.web.Outcome;
import dev.ratelimit.web.RateLimitDecisionObservationContext;
import dev.ratelimit.web.RateLimitObservationDocumentation;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler.FirstMatchingCompositeObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter's handler times observed decisions into the timer Micrometer's default
 * meter handler would record them in (same name and tags, {@code error} included), with
 * no long task timer, and leaves every other observation to the default handler after
 * it, as Spring Boot's first-matching group of meter handlers runs them.
 */
class RateLimitDecisionMeterObservationHandlerTests {

	private static final String NAME = DefaultRateLimitDecisionObservationConvention.NAME;

	private final MockClock clock = new MockClock();

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry(SimpleConfig.DEFAULT, this.clock);

	private final ObservationRegistry observations = ObservationRegistry.create();

	RateLimitDecisionMeterObservationHandlerTests() {
		this.observations.observationConfig()
			.observationHandler(new FirstMatchingCompositeObservationHandler(
					new RateLimitDecisionMeterObservationHandler(this.meters),
					new DefaultMeterObservationHandler(this.meters)));
	}

	@Test
	void aDecisionIsTimedByPolicyTierStoreOutcomeAndErrorWithoutALongTaskTimer() {
		decide("orders", "free", Outcome.ALLOWED, 3);
		decide("orders", "free", Outcome.ALLOWED, 5);
		decide("orders", "free", Outcome.REJECTED, 7);
		Timer allowed = this.meters.get(NAME)
			.tags("policy", "orders", "tier", "free", "store", "redis", "outcome", "allowed", "error", "none")
			.timer();
		assertThat(allowed.count()).isEqualTo(2);
		assertThat(allowed.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(8);
		Timer rejected = this.meters.get(NAME).tags("outcome", "rejected").timer();
		assertThat(rejected.count()).isEqualTo(1);
		assertThat(rejected.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(7);
		assertThat(this.meters.find(NAME + ".active").meters()).isEmpty();
		assertThat(this.meters.find(NAME).meters()).hasSize(2);
	}

	@Test
	void aDecisionWithAnErrorIsTaggedWithItsClass() {
		Observation observation = start("orders", "free");
		observation.error(new IllegalStateException("the store failed"));
		stop(observation, Outcome.ERROR, 2);
		assertThat(this.meters.get(NAME).tags("outcome", "error", "error", "IllegalStateException").timer().count())
			.isEqualTo(1);
	}

	@Test
	void aRenamedObservationIsTimedUnderItsNewName() {
		RateLimitDecisionObservationContext context = new RateLimitDecisionObservationContext("orders", "free",
				"route", "caffeine");
		Observation observation = RateLimitObservationDocumentation.POLICY_DECISIONS
			.observation(new DefaultRateLimitDecisionObservationConvention() {
				@Override
				public String getName() {
					return "gateway.limits";
				}
			}, new DefaultRateLimitDecisionObservationConvention(), () -> context, this.observations)
			.start();
		stop(observation, Outcome.ALLOWED, 1);
		decide("orders", "free", Outcome.ALLOWED, 1);
		assertThat(this.meters.get("gateway.limits").tags("policy", "orders").timer().count()).isEqualTo(1);
		assertThat(this.meters.get(NAME).tags("policy", "orders").timer().count()).isEqualTo(1);
	}

	@Test
	void otherObservationsAreLeftToTheDefaultHandler() {
		Observation.createNotStarted("http.server.requests", this.observations).start().stop();
		assertThat(this.meters.get("http.server.requests").timer().count()).isEqualTo(1);
		assertThat(this.meters.find("http.server.requests.active").longTaskTimer()).isNotNull();
	}

	private void decide(String policy, String tier, Outcome outcome, long millis) {
		stop(start(policy, tier), outcome, millis);
	}

	private Observation start(String policy, String tier) {
		RateLimitDecisionObservationContext context = new RateLimitDecisionObservationContext(policy, tier, "route",
				"redis");
		return RateLimitObservationDocumentation.POLICY_DECISIONS
			.observation(null, new DefaultRateLimitDecisionObservationConvention(), () -> context, this.observations)
			.start();
	}

	private void stop(Observation observation, Outcome outcome, long millis) {
		this.clock.add(millis, TimeUnit.MILLISECONDS);
		((RateLimitDecisionObservationContext) observation.getContext()).setOutcome(outcome);
		observation.stop();
	}

}
