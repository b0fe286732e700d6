package dev.ratelimit.store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import org.jspecify.annotations.Nullable;

/**
 * The application's stores, by name: the one place that finds the store a policy
 * names, for the filter (its {@link BucketDecider}) and for the actuator, metrics and
 * health (its {@link BucketInspector}), and that says what is wrong when there is no
 * such store.
 */
public final class BucketStores {

	private final Map<String, BucketDecider> decidersByName;

	private final Map<String, BucketInspector> inspectorsByName;

	private final List<BucketInspector> inspectors;

	/**
	 * @param deciders every store that decides requests
	 * @param inspectors every store that can be inspected; usually the same objects
	 * @throws IllegalStateException when two different stores of one port share a name
	 */
	public BucketStores(List<? extends BucketDecider> deciders, List<? extends BucketInspector> inspectors) {
		this.decidersByName = byName(deciders, BucketDecider::name);
		this.inspectorsByName = byName(inspectors, BucketInspector::name);
		this.inspectors = List.copyOf(this.inspectorsByName.values());
	}

	private static <S> Map<String, S> byName(List<? extends S> stores, Function<S, String> name) {
		Map<String, S> byName = new LinkedHashMap<>();
		for (S store : stores) {
			S previous = byName.putIfAbsent(name.apply(store), store);
			if (previous != null && previous != store) {
				throw new IllegalStateException("Two rate limit stores are named '" + name.apply(store) + "': "
						+ previous.getClass().getName() + " and " + store.getClass().getName());
			}
		}
		return Collections.unmodifiableMap(byName);
	}

	/**
	 * The store that decides the requests of {@code policy}.
	 * @throws InvalidRateLimitConfigurationException when no store has the name the
	 * policy gives
	 */
	public BucketDecider decider(RateLimitPolicy policy) {
		BucketDecider decider = this.decidersByName.get(policy.store().storeName());
		if (decider == null) {
			throw new InvalidRateLimitConfigurationException(List.of(missingStore(policy)));
		}
		return decider;
	}

	/**
	 * The store that keeps the buckets of {@code policy}, for the operator to look
	 * into.
	 * @return the store, or {@code null} when it decides requests but cannot be
	 * inspected ({@link #notInspectable} says so)
	 * @throws InvalidRateLimitConfigurationException when no store has the name the
	 * policy gives
	 */
	public @Nullable BucketInspector inspector(RateLimitPolicy policy) {
		String name = policy.store().storeName();
		BucketInspector inspector = this.inspectorsByName.get(name);
		if (inspector == null && !this.decidersByName.containsKey(name)) {
			throw new InvalidRateLimitConfigurationException(List.of(missingStore(policy)));
		}
		return inspector;
	}

	/**
	 * Every store that can be inspected, in the order they were given.
	 */
	public List<BucketInspector> inspectors() {
		return this.inspectors;
	}

	/**
	 * The problem of each policy whose store is missing, for a start-up check that
	 * lists them all.
	 */
	public List<ConfigurationProblem> missingStores(RateLimitPolicies policies) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		for (RateLimitPolicy policy : policies.byId().values()) {
			if (!this.decidersByName.containsKey(policy.store().storeName())) {
				problems.add(missingStore(policy));
			}
		}
		return problems;
	}

	/**
	 * Why the store of a policy whose {@link #inspector} is {@code null} shows nothing
	 * to an operator.
	 */
	public static String notInspectable(RateLimitPolicy policy) {
		return "the " + policy.store().storeName()
				+ " store decides requests but cannot be inspected (it implements no BucketInspector)";
	}

	private ConfigurationProblem missingStore(RateLimitPolicy policy) {
		Set<String> available = new TreeSet<>(this.decidersByName.keySet());
		available.addAll(this.inspectorsByName.keySet());
		return new ConfigurationProblem("ratelimit.policies." + policy.id() + ".store (or ratelimit.store)",
				policy.store().storeName(),
				"must name an available store (available: " + (available.isEmpty() ? "none" : available)
						+ "); the redis and hybrid stores need spring-boot-starter-data-redis-reactive and a"
						+ " reachable Redis (spring.data.redis.*), the caffeine store needs Caffeine on the classpath");
	}

}
