package dev.ratelimit.web;

import dev.ratelimit.algorithm.Verdict;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * Observes each policy's decision of a request
 * ({@link RateLimitObservationDocumentation#POLICY_DECISIONS}) as a child of the
 * request's observation, which Spring WebFlux keeps in the Reactor context of the
 * request's filter chain. Built only for a registry that is not
 * {@link ObservationRegistry#NOOP}, so that without one the request path has nothing to
 * do; a route's judge reads the request's context only while {@link #active()}.
 */
final class DecisionObservations {

	private static final RateLimitDecisionObservationConvention DEFAULT_CONVENTION =
			new DefaultRateLimitDecisionObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable RateLimitDecisionObservationConvention convention;

	private DecisionObservations(ObservationRegistry registry,
			@Nullable RateLimitDecisionObservationConvention convention) {
		this.registry = registry;
		this.convention = convention;
	}

	/**
	 * The observations of decisions in {@code registry}, or {@code null} for
	 * {@link ObservationRegistry#NOOP}.
	 * @param convention replaces the default convention, or {@code null}
	 */
	static @Nullable DecisionObservations of(ObservationRegistry registry,
			@Nullable RateLimitDecisionObservationConvention convention) {
		return (registry == ObservationRegistry.NOOP) ? null : new DecisionObservations(registry, convention);
	}

	/**
	 * Whether decisions are observed now: the registry has handlers.
	 */
	boolean active() {
		return !this.registry.isNoop();
	}

	/**
	 * Start observing a decision, as a child of the observation in {@code request}, the
	 * request's Reactor context, when there is one (else of the registry's current
	 * observation, if any).
	 */
	Observation start(ContextView request, String policy, String tier, String routeId, String store) {
		RateLimitDecisionObservationContext context = new RateLimitDecisionObservationContext(policy, tier, routeId,
				store);
		Observation observation = RateLimitObservationDocumentation.POLICY_DECISIONS.observation(this.convention,
				DEFAULT_CONVENTION, () -> context, this.registry);
		Observation parent = request.getOrDefault(ObservationThreadLocalAccessor.KEY, null);
		if (parent != null) {
			observation.parentObservation(parent);
		}
		return observation.start();
	}

	/**
	 * Stop observing a decision, with its outcome.
	 */
	static void stop(Observation observation, Outcome outcome) {
		if (observation.getContext() instanceof RateLimitDecisionObservationContext context) {
			context.setOutcome(outcome);
		}
		observation.stop();
	}

	/**
	 * A decision awaited from a store, which never fails, observed until its verdict,
	 * whether or not its request still awaits it.
	 * @param shadow whether the policy only counts and reports its refusals
	 */
	static Mono<Verdict> awaited(Mono<Verdict> decision, Observation observation, boolean shadow) {
		if (observation.isNoop()) {
			return decision;
		}
		return decision.doOnNext((verdict) -> stop(observation, Outcome.of(verdict, shadow)));
	}

}
