package dev.ratelimit.autoconfigure;

import java.util.List;

import dev.ratelimit.actuate.KeyMasker;
import dev.ratelimit.actuate.RateLimitTotals;
import dev.ratelimit.actuate.RateLimitsEndpoint;
import dev.ratelimit.policy.ConfigurationChecks;
import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.policy.PolicyReloads;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.web.HeldRequests;
import dev.ratelimit.web.RateLimitWebFilter;
import dev.ratelimit.web.RateLimitedRoutes;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the {@code ratelimits}
 * endpoint and the totals it shows. Present only when the endpoint is exposed.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
		afterName = { "dev.ratelimit.autoconfigure.RedisStoreAutoConfiguration",
				"org.springframework.cloud.gateway.config.GatewayAutoConfiguration" })
@ConditionalOnClass(ConditionalOnAvailableEndpoint.class)
@ConditionalOnAvailableEndpoint(RateLimitsEndpoint.class)
@ConditionalOnBean(RateLimitPolicies.class)
@EnableConfigurationProperties(RateLimitActuatorProperties.class)
@Import({ BucketStoresConfiguration.class, RateLimitedRoutesConfiguration.class })
public final class RateLimitEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitTotals rateLimitTotals() {
		return new RateLimitTotals();
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitsEndpoint rateLimitsEndpoint(RateLimitPolicies policies, BucketStores stores,
			ObjectProvider<LivePolicies> livePolicies, RateLimitTotals totals, RateLimitActuatorProperties properties,
			ObjectProvider<RateLimitedRoutes> routes, ObjectProvider<RateLimitWebFilter> webFilter,
			ObjectProvider<PolicyReloads> reloads, ObjectProvider<HeldRequests> held) {
		RateLimitWebFilter web = webFilter.getIfAvailable();
		return new RateLimitsEndpoint(livePolicies.getIfAvailable(() -> new LivePolicies(policies)), stores, totals,
				keyMasker(properties), routes.getIfAvailable(), (web != null) ? web.routes() : List.of(),
				reloads.getIfAvailable(), held.getIfAvailable());
	}

	private static KeyMasker keyMasker(RateLimitActuatorProperties properties) {
		return new KeyMasker(properties.getShowKeys(), ConfigurationChecks
			.requireNotNegative("ratelimit.actuator.mask-prefix-length", properties.getMaskPrefixLength()));
	}

}
