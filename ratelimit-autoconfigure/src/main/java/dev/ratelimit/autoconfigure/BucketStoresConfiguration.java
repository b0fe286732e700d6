package dev.ratelimit.autoconfigure;

import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketInspector;
import dev.ratelimit.store.BucketStores;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The registry of the application's stores, shared by the request path, the actuator
 * endpoint, metrics and health: imported by each of their auto-configurations, so that
 * whichever of them is present finds the stores by name the same way.
 */
@Configuration(proxyBeanMethods = false)
class BucketStoresConfiguration {

	@Bean
	@ConditionalOnMissingBean
	BucketStores rateLimitBucketStores(ObjectProvider<BucketDecider> deciders,
			ObjectProvider<BucketInspector> inspectors) {
		return new BucketStores(deciders.orderedStream().toList(), inspectors.orderedStream().toList());
	}

}
