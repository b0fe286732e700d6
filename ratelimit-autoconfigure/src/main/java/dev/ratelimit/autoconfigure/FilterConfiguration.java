package dev.ratelimit.autoconfigure;

import dev.ratelimit.gateway.RateLimitGatewayFilterFactory;
import dev.ratelimit.gateway.RateLimitListener;
import dev.ratelimit.gateway.RateLimitMessages;
import dev.ratelimit.gateway.RateLimitRouteValidator;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.store.BucketStores;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.context.MessageSource;
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
	RateLimitGatewayFilterFactory rateLimitGatewayFilterFactory(RateLimitPolicies policies,
			BucketStores stores, ObjectProvider<RateLimitListener> listeners, BeanFactory beanFactory,
			ObjectProvider<ServerCodecConfigurer> codecs, RateLimitProperties properties,
			ObjectProvider<MessageSource> messageSource) {
		RateLimitGatewayFilterFactory factory = new RateLimitGatewayFilterFactory(policies, stores,
				listeners.orderedStream().toList(), beanFactory,
				codecs.getIfAvailable(ServerCodecConfigurer::create).getWriters(), properties.getHeaders(),
				properties.getApiKeyHeader(), ConfigurationChecks.problemType(properties));
		factory.setMessages(
				new RateLimitMessages(messageSource.getIfAvailable(), properties.getProblem().getLocale()));
		return factory;
	}

	@Bean
	@ConditionalOnMissingBean
	static ReactorNettyVersionCheck reactorNettyVersionCheck() {
		return new ReactorNettyVersionCheck();
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitRouteValidator rateLimitRouteValidator(RateLimitPolicies policies, BucketStores stores,
			ObjectProvider<GatewayProperties> gatewayProperties) {
		return new RateLimitRouteValidator(policies, stores,
				gatewayProperties.getIfAvailable());
	}

}
