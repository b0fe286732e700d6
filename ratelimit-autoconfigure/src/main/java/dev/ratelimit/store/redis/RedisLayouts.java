package dev.ratelimit.store.redis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.Tier;

/**
 * Every tier's {@link RedisLayout} under one key prefix, each computed on first use and
 * again when a reload replaces its tier.
 */
public final class RedisLayouts {

	private final String keyPrefix;

	private final Map<String, Map<String, RedisLayout>> layouts = new ConcurrentHashMap<>();

	/**
	 * @param keyPrefix the prefix of every key, from {@code ratelimit.redis.key-prefix}
	 */
	RedisLayouts(String keyPrefix) {
		if (keyPrefix == null || keyPrefix.isBlank() || keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
			throw new IllegalArgumentException("ratelimit.redis.key-prefix must be non-blank and without '{' or '}' "
					+ "(they would break the keys' cluster hash tag) but was '" + keyPrefix + "'");
		}
		this.keyPrefix = keyPrefix;
	}

	String keyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * The layout of a tier, computed on first use.
	 */
	public RedisLayout layout(String policy, Tier tier) {
		Map<String, RedisLayout> tiers = this.layouts.computeIfAbsent(policy, (id) -> new ConcurrentHashMap<>());
		RedisLayout layout = tiers.get(tier.name());
		if (layout == null || layout.tier() != tier) {
			layout = new RedisLayout(this.keyPrefix, policy, tier);
			tiers.put(tier.name(), layout);
		}
		return layout;
	}

	/**
	 * Forget the layouts of the policies and tiers not among {@code policies}, those in
	 * force after a live reload.
	 */
	void retain(Collection<RateLimitPolicy> policies) {
		Map<String, Set<String>> inForce = new HashMap<>();
		for (RateLimitPolicy policy : policies) {
			Set<String> tiers = new HashSet<>();
			policy.tiers().values().forEach((tier) -> tiers.add(tier.name()));
			tiers.add(policy.defaultTier().name());
			inForce.put(policy.id(), tiers);
		}
		this.layouts.keySet().retainAll(inForce.keySet());
		// A request judged under the policies before the reload may add one back meanwhile.
		this.layouts.forEach((policy, tiers) -> tiers.keySet().retainAll(inForce.getOrDefault(policy, Set.of())));
	}

	/**
	 * Policies and tiers with a layout, for tests.
	 */
	int size() {
		return this.layouts.values().stream().mapToInt(Map::size).sum();
	}

	/**
	 * The layouts of every tier of a policy, its default tier included.
	 */
	Collection<RedisLayout> layouts(RateLimitPolicy policy) {
		Set<Tier> tiers = new LinkedHashSet<>(policy.tiers().values());
		tiers.add(policy.defaultTier());
		List<RedisLayout> layouts = new ArrayList<>(tiers.size());
		for (Tier tier : tiers) {
			layouts.add(layout(policy.id(), tier));
		}
		return layouts;
	}

}
