package dev.ratelimit.actuator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.TreeSet;

import dev.ratelimit.actuator.RateLimitsEndpoint.LimitDescriptor;
import dev.ratelimit.actuator.RateLimitsEndpoint.PolicyDescriptor;
import dev.ratelimit.actuator.RateLimitsEndpoint.ProblemDescriptor;
import dev.ratelimit.actuator.RateLimitsEndpoint.RateLimitsDescriptor;
import dev.ratelimit.actuator.RateLimitsEndpoint.ReloadDescriptor;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.DurationFormat;
import dev.ratelimit.policy.PolicyReloads;
import dev.ratelimit.policy.PolicyReloads.Reload;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketInspector;
import dev.ratelimit.store.BucketStores;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The {@code ratelimits} endpoint's overview: every policy as configured, with the
 * routes that use it, its live buckets and its decisions so far, and the last reload.
 */
final class PolicyOverview {

	private final Supplier<RateLimitPolicies> policies;

	private final BucketStores stores;

	private final RateLimitTotals totals;

	private final @Nullable RateLimitedRoutes routes;

	private final @Nullable PolicyReloads reloads;

	PolicyOverview(Supplier<RateLimitPolicies> policies, BucketStores stores, RateLimitTotals totals,
			@Nullable RateLimitedRoutes routes, @Nullable PolicyReloads reloads) {
		this.policies = policies;
		this.stores = stores;
		this.totals = totals;
		this.routes = routes;
		this.reloads = reloads;
	}

	Mono<RateLimitsDescriptor> describe() {
		Mono<Map<String, List<String>>> routeIdsByPolicy = (this.routes != null) ? this.routes.routeIdsByPolicy()
				: Mono.just(Map.of());
		return routeIdsByPolicy.flatMap((routeIds) -> Flux.fromIterable(new TreeMap<>(this.policies.get().byId()).values())
			.concatMap((policy) -> describe(policy, routeIds.getOrDefault(policy.id(), List.of())))
			.collectList()
			.map(this::describeAll));
	}

	private RateLimitsDescriptor describeAll(List<PolicyDescriptor> policies) {
		TreeSet<String> stores = new TreeSet<>();
		Map<String, PolicyDescriptor> byId = new LinkedHashMap<>();
		for (PolicyDescriptor policy : policies) {
			stores.add(policy.store());
			byId.put(policy.id(), policy);
		}
		return new RateLimitsDescriptor(List.copyOf(stores), byId, lastReload());
	}

	private @Nullable ReloadDescriptor lastReload() {
		Reload last = (this.reloads != null) ? this.reloads.last() : null;
		if (last == null) {
			return null;
		}
		List<ProblemDescriptor> problems = new ArrayList<>();
		for (ConfigurationProblem problem : last.problems()) {
			problems.add(new ProblemDescriptor(problem.property(),
					(problem.value() != null) ? String.valueOf(problem.value()) : null, problem.rule()));
		}
		return new ReloadDescriptor(last.at(), last.outcome().value(), last.changedKeys(), problems);
	}

	private Mono<PolicyDescriptor> describe(RateLimitPolicy policy, List<String> routeIds) {
		BucketInspector store = this.stores.inspector(policy);
		Map<String, List<LimitDescriptor>> tiers = new TreeMap<>();
		policy.tiers().forEach((name, tier) -> tiers.put(name, describe(policy, tier)));
		// One unreachable remote store must not hide every other policy from the operator.
		Mono<LiveBuckets> liveBuckets = (store != null) ? store.bucketCount(policy)
			.map(LiveBuckets::counted)
			.onErrorResume((failure) -> Mono.just(LiveBuckets.failed(store, failure)))
				: Mono.just(new LiveBuckets(null, BucketStores.notInspectable(policy)));
		return liveBuckets
			.map((live) -> new PolicyDescriptor(policy.id(), policy.key().configValue(), policy.shadow(),
					policy.cost(), policy.store().storeName(), List.copyOf(routeIds), live.count(),
					live.countError(), this.totals.totals(policy.id()), policy.defaultTier().name(), tiers));
	}

	private static List<LimitDescriptor> describe(RateLimitPolicy policy, Tier tier) {
		List<LimitDescriptor> limits = new ArrayList<>();
		for (int i = 0; i < tier.limits().size(); i++) {
			Limit limit = tier.limits().get(i);
			Map<String, Object> parameters = new LinkedHashMap<>();
			limit.parameters().forEach((name, value) -> parameters.put(name, readable(value)));
			limits.add(new LimitDescriptor(tier.limitName(policy.id(), i), limit.algorithm().configName(),
					parameters));
		}
		return limits;
	}

	private static Object readable(Object value) {
		return (value instanceof Duration duration) ? DurationFormat.asConfigured(duration) : value;
	}

	private record LiveBuckets(@Nullable Long count, @Nullable String countError) {

		static LiveBuckets counted(long count) {
			return new LiveBuckets(count, null);
		}

		static LiveBuckets failed(BucketInspector store, Throwable failure) {
			return new LiveBuckets(null, "the " + store.name() + " store could not count its buckets: " + failure);
		}

	}

}
