package dev.ratelimit.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.ratelimit.policy.StoreType;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * {@link ConditionalOnRateLimitStore}: reads only the store properties, so that it
 * never fails on the rest of the configuration (the policy factory reports that).
 */
class OnRateLimitStoreCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		List<StoreType> wanted = List.of((StoreType[]) metadata
			.getAnnotationAttributes(ConditionalOnRateLimitStore.class.getName())
			.get("value"));
		Binder binder = Binder.get(context.getEnvironment());
		StoreType global = binder.bind("ratelimit.store", StoreType.class).orElse(StoreType.CAFFEINE);
		if (wanted.contains(global)) {
			return ConditionOutcome.match("ratelimit.store is " + global.storeName());
		}
		Map<String, PolicyStore> policies = binder.bind("ratelimit.policies", Bindable.mapOf(String.class,
				PolicyStore.class)).orElse(Map.of());
		for (Map.Entry<String, PolicyStore> policy : policies.entrySet()) {
			StoreType store = policy.getValue().getStore();
			if (store != null && wanted.contains(store)) {
				return ConditionOutcome.match("ratelimit.policies." + policy.getKey() + ".store is " + store.storeName());
			}
		}
		return ConditionOutcome.noMatch("no policy uses the "
				+ wanted.stream().map(StoreType::storeName).collect(Collectors.joining(" or ")) + " store");
	}

	/**
	 * The one property of a policy this condition reads.
	 */
	public static class PolicyStore {

		private StoreType store;

		public StoreType getStore() {
			return this.store;
		}

		public void setStore(StoreType store) {
			this.store = store;
		}

	}

}
