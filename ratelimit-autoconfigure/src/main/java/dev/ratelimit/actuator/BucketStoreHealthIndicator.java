package dev.ratelimit.actuator;

import dev.ratelimit.store.BucketInspector;
import dev.ratelimit.store.StoreHealth;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of one store, from its {@link BucketInspector#health()}: UP while
 * the store decides by itself; DOWN while a failure mode decides for it (a remote
 * store that cannot be reached), with the store's details naming that failure mode.
 * DOWN rather than a custom status because the configured limits are no longer
 * enforced as written; Boot's readiness and liveness groups leave this contributor
 * out, so a DOWN limiter does not take the gateway out of rotation.
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
		builder.status(health.up() ? Status.UP : Status.DOWN)
			.withDetail("store", this.store.name())
			.withDetails(health.details());
	}

}
