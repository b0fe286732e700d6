package dev.ratelimit.metrics;

import dev.ratelimit.web.HeldRequests;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds the gauges of the requests this node holds for shaping: {@code ratelimit.shaping.held},
 * held now, and {@code ratelimit.shaping.held.max}, the most it may hold
 * ({@code ratelimit.shaping.max-held-requests}), beyond which requests a limit would hold
 * are answered with 503. The bound is a meter of its own, as Micrometer's
 * {@code executor.pool.size} and {@code executor.pool.max} are, rather than a tag: a
 * tag's values are slices of one quantity, which held and max are not. Untagged: the
 * places are the node's, shared by every policy and route.
 */
public final class RateLimitHeldRequestsMetrics implements MeterBinder {

	/** Name of the gauge of the requests held now. */
	public static final String HELD = "ratelimit.shaping.held";

	/** Name of the gauge of the most requests held at once. */
	public static final String HELD_MAX = "ratelimit.shaping.held.max";

	private final HeldRequests held;

	/**
	 * @param held this node's held requests
	 */
	public RateLimitHeldRequestsMetrics(HeldRequests held) {
		this.held = held;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder(HELD, this.held, HeldRequests::held)
			.description("Requests this node holds for shaping now")
			.strongReference(true)
			.register(registry);
		Gauge.builder(HELD_MAX, this.held, HeldRequests::max)
			.description("The most requests this node holds for shaping at once; beyond it, 503")
			.strongReference(true)
			.register(registry);
	}

}
