package dev.ratelimit.actuate;

import dev.ratelimit.store.BucketInspector;
import dev.ratelimit.store.StoreHealth;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of one store, from its {@link BucketInspector#health()}: UP while the store
 * serves requests, whether it decides by itself or a failure mode that admits them
 * decides for it ({@code on-failure} {@code allow} or {@code local} while Redis cannot
 * be reached); DOWN while requests are refused because it cannot decide
 * ({@code deny}). The details tell which ({@code remote: DOWN}, the failure mode, the
 * breaker's state, the last error).
 * <p>
 * UP rather than DOWN while failing open because the gateway is serving: a DOWN here
 * makes {@code /actuator/health} answer 503, and a load balancer probing it would take
 * every node out of service during a Redis outage that the configuration says to ride
 * out. UP rather than a custom status such as {@code DEGRADED} because Boot's default
 * aggregation sorts a status it was not told of ahead of {@code DOWN}: one degraded
 * limiter would hide another component's DOWN, and the overall status would answer 200.
 */
public class BucketStoreHealthIndicator extends AbstractHealthIndicator {

	private final BucketInspector store;

	public BucketStoreHealthIndicator(BucketInspector store) {
		super("Rate limit store '" + store.name() + "' failed its health check");
		this.store = store;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		StoreHealth health = this.store.health();
		builder.status(health.serving() ? Status.UP : Status.DOWN)
			.withDetail("store", this.store.name())
			.withDetails(health.details());
	}

}
