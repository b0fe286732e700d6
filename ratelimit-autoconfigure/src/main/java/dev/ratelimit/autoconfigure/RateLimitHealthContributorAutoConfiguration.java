package dev.ratelimit.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.ratelimit.actuator.BucketStoreHealthIndicator;
import dev.ratelimit.store.BucketStore;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the {@code ratelimit} health
 * contributor: one indicator for a single bucket store, one per store by name when
 * policies use several. Disabled by {@code management.health.ratelimit.enabled=false}.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
		afterName = "dev.ratelimit.autoconfigure.RedisStoreAutoConfiguration")
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(BucketStore.class)
@ConditionalOnEnabledHealthIndicator("ratelimit")
public final class RateLimitHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = { "ratelimitHealthIndicator", "ratelimitHealthContributor" })
	HealthContributor ratelimitHealthContributor(ObjectProvider<BucketStore> stores) {
		List<BucketStore> all = stores.orderedStream().toList();
		if (all.size() == 1) {
			return new BucketStoreHealthIndicator(all.get(0));
		}
		Map<String, HealthContributor> byName = new TreeMap<>();
		for (BucketStore store : all) {
			byName.put(store.name(), new BucketStoreHealthIndicator(store));
		}
		return CompositeHealthContributor.fromMap(byName);
	}

}
