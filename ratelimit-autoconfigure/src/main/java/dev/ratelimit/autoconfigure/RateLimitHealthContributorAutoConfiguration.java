package dev.ratelimit.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.ratelimit.actuate.BucketStoreHealthIndicator;
import dev.ratelimit.store.BucketInspector;
import dev.ratelimit.store.BucketStores;

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
import org.springframework.context.annotation.Import;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the {@code ratelimit} health
 * contributor: one indicator for a single bucket store, one per store by name when
 * policies use several. Disabled by {@code management.health.ratelimit.enabled=false}.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
		afterName = "dev.ratelimit.autoconfigure.RedisStoreAutoConfiguration")
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(BucketInspector.class)
@ConditionalOnEnabledHealthIndicator("ratelimit")
@Import(BucketStoresConfiguration.class)
public final class RateLimitHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = { "ratelimitHealthIndicator", "ratelimitHealthContributor" })
	HealthContributor ratelimitHealthContributor(BucketStores stores) {
		List<BucketInspector> all = stores.inspectors();
		if (all.size() == 1) {
			return new BucketStoreHealthIndicator(all.get(0));
		}
		Map<String, HealthContributor> byName = new TreeMap<>();
		for (BucketInspector store : all) {
			byName.put(store.name(), new BucketStoreHealthIndicator(store));
		}
		return CompositeHealthContributor.fromMap(byName);
	}

}
