package dev.ratelimit.autoconfigure;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.gateway.CostResolver;
import dev.ratelimit.gateway.RateLimitEnforcers;
import dev.ratelimit.gateway.RateLimitListener;
import dev.ratelimit.gateway.RateLimitProblemWriter;
import dev.ratelimit.gateway.RateLimitRejectionHandler;
import dev.ratelimit.gateway.TierResolver;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.store.BucketStore;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.codec.ServerCodecConfigurer;

/**
 * What every route's request path is built from, gateway route or web route: the
 * rejection handler and the enforcers, with the application's tier and cost resolvers
 * when it declares them.
 */
@Configuration(proxyBeanMethods = false)
class RequestPathConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitRejectionHandler rateLimitRejectionHandler(ObjectProvider<ServerCodecConfigurer> codecs,
			RateLimitProperties properties) {
		return new RateLimitProblemWriter(codecs.getIfAvailable(ServerCodecConfigurer::create).getWriters(),
				problemType(properties));
	}

	/**
	 * The problem type, validated again for applications that define their own
	 * policies, whose start-up skips the policy factory's checks.
	 */
	private static URI problemType(RateLimitProperties properties) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		URI type = RateLimitPolicyFactory.problemType(properties.getProblem().getType(), problems);
		if (!problems.isEmpty()) {
			throw new InvalidRateLimitConfigurationException(problems);
		}
		return type;
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitEnforcers rateLimitEnforcers(RateLimitPolicies policies, ObjectProvider<BucketStore> stores,
			ObjectProvider<RateLimitListener> listeners, RateLimitProperties properties,
			RateLimitRejectionHandler rejectionHandler, ObjectProvider<TierResolver> tierResolver,
			ObjectProvider<CostResolver> costResolver) {
		return new RateLimitEnforcers(policies, stores.orderedStream().toList(), listeners.orderedStream().toList(),
				properties.getHeaders(), properties.getApiKeyHeader(), rejectionHandler,
				tierResolver.getIfUnique(), costResolver.getIfUnique());
	}

}
