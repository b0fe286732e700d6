package dev.ratelimit.autoconfigure;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.gateway.RateLimitGatewayFilterFactory;
import dev.ratelimit.gateway.RateLimitListener;
import dev.ratelimit.gateway.RateLimitRouteValidator;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.store.BucketStore;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.codec.ServerCodecConfigurer;

/**
 * The {@code RateLimit} gateway filter, the start-up check of the routes that use it
 * and of the Reactor Netty they run on.
 */
@Configuration(proxyBeanMethods = false)
class FilterConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitGatewayFilterFactory rateLimitGatewayFilterFactory(LivePolicies policies,
			ObjectProvider<BucketStore> stores, ObjectProvider<RateLimitListener> listeners, BeanFactory beanFactory,
			ObjectProvider<ServerCodecConfigurer> codecs, RateLimitProperties properties) {
		return new RateLimitGatewayFilterFactory(policies, stores.orderedStream().toList(),
				listeners.orderedStream().toList(), beanFactory,
				codecs.getIfAvailable(ServerCodecConfigurer::create).getWriters(), properties.getHeaders(),
				properties.getApiKeyHeader(), problemType(properties));
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
	static ReactorNettyVersionCheck reactorNettyVersionCheck() {
		return new ReactorNettyVersionCheck();
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitRouteValidator rateLimitRouteValidator(LivePolicies policies, ObjectProvider<BucketStore> stores,
			ObjectProvider<GatewayProperties> gatewayProperties) {
		return new RateLimitRouteValidator(policies.get(), stores.orderedStream().toList(),
				gatewayProperties.getIfAvailable());
	}

}
