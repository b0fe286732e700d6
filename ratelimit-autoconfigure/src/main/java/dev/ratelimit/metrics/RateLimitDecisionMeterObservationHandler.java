package dev.ratelimit.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.web.RateLimitDecisionObservationContext;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.MeterObservationHandler;
import io.micrometer.observation.Observation;

/**
 * Times each observed decision ({@code ratelimit.policy.decisions}) into the timer
 * Micrometer's default meter handler would record it in (same name, and tags from the
 * low-cardinality key values and {@code error}) for less: the timer is looked up once per
 * set of key values rather than built and registered at each stop (Micrometer's
 * {@code KeyValues} are equal by content), and there is no long task timer, since a
 * decision lasts microseconds, or a store's round trip, too short for one to show what
 * {@code ratelimit.decision} does not. Decisions are observed on every request, so this
 * is on the request path; other observations are left to the default handler, after this
 * one in Spring Boot's first-matching group of meter handlers.
 */
public final class RateLimitDecisionMeterObservationHandler
		implements MeterObservationHandler<RateLimitDecisionObservationContext> {

	private final MeterRegistry registry;

	private final Clock clock;

	/**
	 * The timers by observation name (one, unless a convention renames some policies'
	 * observations) and key values.
	 */
	private final ConcurrentHashMap<String, ConcurrentHashMap<KeyValues, Timer>> timers = new ConcurrentHashMap<>();

	public RateLimitDecisionMeterObservationHandler(MeterRegistry registry) {
		this.registry = registry;
		this.clock = registry.config().clock();
	}

	@Override
	public void onStart(RateLimitDecisionObservationContext context) {
		context.put(Started.class, new Started(this.clock.monotonicTime()));
	}

	@Override
	public void onStop(RateLimitDecisionObservationContext context) {
		Started started = context.get(Started.class);
		if (started == null) {
			return;
		}
		long nanos = this.clock.monotonicTime() - started.nanos();
		timer(context).record(nanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof RateLimitDecisionObservationContext;
	}

	private Timer timer(RateLimitDecisionObservationContext context) {
		KeyValues keyValues = context.getLowCardinalityKeyValues();
		Throwable error = context.getError();
		if (error != null) {
			return register(context.getName(), keyValues, error.getClass().getSimpleName());
		}
		String name = context.getName();
		ConcurrentHashMap<KeyValues, Timer> named = this.timers.get(name);
		if (named == null) {
			named = this.timers.computeIfAbsent(name, (any) -> new ConcurrentHashMap<>());
		}
		Timer timer = named.get(keyValues);
		if (timer == null) {
			timer = named.computeIfAbsent(keyValues, (values) -> register(name, values, "none"));
		}
		return timer;
	}

	private Timer register(String name, KeyValues keyValues, String error) {
		List<Tag> tags = new ArrayList<>();
		for (KeyValue keyValue : keyValues) {
			tags.add(Tag.of(keyValue.getKey(), keyValue.getValue()));
		}
		tags.add(Tag.of("error", error));
		return Timer.builder(name).tags(tags).register(this.registry);
	}

	/**
	 * When a decision's observation started, on the registry's clock.
	 */
	private record Started(long nanos) {
	}

}
