package dev.ratelimit.autoconfigure;

import dev.ratelimit.policy.ConfigurationChecks;
import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.web.CostResolver;
import dev.ratelimit.web.HeldRequests;
import dev.ratelimit.web.RateLimitDecisionObservationConvention;
import dev.ratelimit.web.RateLimitListener;
import dev.ratelimit.web.RateLimitMessages;
import dev.ratelimit.web.RateLimitProblemWriter;
import dev.ratelimit.web.RateLimitRejectionHandler;
import dev.ratelimit.web.RequestJudges;
import dev.ratelimit.web.ResponseCostResolver;
import dev.ratelimit.web.TierResolver;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.MessageSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.codec.ServerCodecConfigurer;

/**
 * What every route's request path is built from, gateway route or web route: the
 * rejection handler and the judges, with the application's tier, cost and response cost
 * resolvers when it declares them, and each policy's decision observed in the
 * {@link ObservationRegistry} when there is one (Spring Boot's, with Actuator), through
 * the application's {@link RateLimitDecisionObservationConvention} when it declares one;
 * {@code management.observations.enable.ratelimit=false} turns the observations off.
 */
@Configuration(proxyBeanMethods = false)
class RequestPathConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitRejectionHandler rateLimitRejectionHandler(ObjectProvider<ServerCodecConfigurer> codecs,
			RateLimitProperties properties) {
		return new RateLimitProblemWriter(codecs.getIfAvailable(ServerCodecConfigurer::create).getWriters(),
				PoliciesFromProperties.problemType(properties));
	}

	@Bean
	@ConditionalOnMissingBean
	HeldRequests rateLimitHeldRequests(RateLimitProperties properties) {
		return new HeldRequests((int) ConfigurationChecks.requirePositive("ratelimit.shaping.max-held-requests",
				properties.getShaping().getMaxHeldRequests()));
	}

	@Bean
	@ConditionalOnMissingBean
	RequestJudges rateLimitRequestJudges(LivePolicies policies, BucketStores stores,
			ObjectProvider<RateLimitListener> listeners, RateLimitProperties properties,
			RateLimitRejectionHandler rejectionHandler, ObjectProvider<TierResolver> tierResolver,
			ObjectProvider<CostResolver> costResolver, ObjectProvider<MessageSource> messageSource,
			HeldRequests heldRequests, ObjectProvider<ResponseCostResolver> responseCostResolver,
			MonotonicClock clock, ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<RateLimitDecisionObservationConvention> observationConvention) {
		return new RequestJudges(policies, stores, listeners.orderedStream().toList(), properties.getHeaders(),
				properties.getApiKeyHeader(), rejectionHandler, tierResolver.getIfUnique(),
				costResolver.getIfUnique(),
				new RateLimitMessages(messageSource.getIfAvailable(), properties.getProblem().getLocale()),
				heldRequests, responseCostResolver.getIfUnique(), clock,
				observationRegistry.getIfUnique(() -> ObservationRegistry.NOOP), observationConvention.getIfUnique());
	}

}
