package dev.ratelimit.metrics;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.web.Outcome;
import dev.ratelimit.web.RateLimitListener;
import dev.ratelimit.web.RateLimitListener.RouteTierListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Records every decision as {@code ratelimit.requests} (a counter tagged policy, tier,
 * route and outcome; never the client key, whose cardinality is unbounded) and
 * {@code ratelimit.decision} (a timer of the time spent waiting for the store, tagged
 * store), and every hold a shaping limit gives as {@code ratelimit.shaping.delay} (a
 * timer tagged policy, tier, route and outcome {@code delayed} or
 * {@code shadow-delayed}). Meters are registered the first time a policy, tier and
 * route are seen (the hold timers, the first time one of them holds) and looked up
 * without allocating afterwards, so the request path never builds a meter; a route's
 * judge, bound to its route and tier ({@link #forRouteTier}), looks them up once and
 * keeps them.
 */
public final class RateLimitRequestMetrics implements RateLimitListener {

	/** Name of the counter of decisions. */
	public static final String REQUESTS = "ratelimit.requests";

	/** Name of the timer of decisions. */
	public static final String DECISION = "ratelimit.decision";

	/** Name of the timer of the holds shaping limits give. */
	public static final String SHAPING_DELAY = "ratelimit.shaping.delay";

	private static final Outcome[] OUTCOMES = Outcome.values();

	private final MeterRegistry registry;

	/** Counters by policy, tier, route and outcome ordinal. */
	private final ConcurrentMap<String, ConcurrentMap<String, ConcurrentMap<String, Counter[]>>> countersByPolicy =
			new ConcurrentHashMap<>();

	private final ConcurrentMap<String, Timer> timersByStore = new ConcurrentHashMap<>();

	/** Hold timers by policy, tier and route. */
	private final ConcurrentMap<String, ConcurrentMap<String, ConcurrentMap<String, HoldTimers>>> holdTimersByPolicy =
			new ConcurrentHashMap<>();

	public RateLimitRequestMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onDecision(String policy, String tier, String routeId, String store, Outcome outcome,
			long decisionNanos) {
		counters(policy, tier, routeId)[outcome.ordinal()].increment();
		if (askedTheStore(outcome)) {
			timer(store).record(decisionNanos, TimeUnit.NANOSECONDS);
		}
	}

	@Override
	public void onDelayed(String policy, String tier, String routeId, String store, Outcome outcome,
			long decisionNanos, long delayNanos) {
		onDecision(policy, tier, routeId, store, outcome, decisionNanos);
		holdTimers(policy, tier, routeId).of(outcome).record(delayNanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public RouteTierListener forRouteTier(String policy, String tier, String routeId, String store) {
		return new RouteTierMeters(policy, tier, routeId, store);
	}

	/**
	 * A request without a key, with an invalid cost or exempt from its policy is
	 * answered without asking the store: there is nothing to time. One refused because
	 * this node holds as many requests as it may was judged by the store first, and is
	 * timed.
	 */
	private static boolean askedTheStore(Outcome outcome) {
		return outcome != Outcome.MISSING_KEY && outcome != Outcome.INVALID_COST && outcome != Outcome.EXEMPT;
	}

	private Counter[] counters(String policy, String tier, String routeId) {
		ConcurrentMap<String, Counter[]> byRoute = child(child(this.countersByPolicy, policy), tier);
		Counter[] counters = byRoute.get(routeId);
		return (counters != null) ? counters
				: byRoute.computeIfAbsent(routeId, (id) -> registerCounters(policy, tier, routeId));
	}

	private static <V> ConcurrentMap<String, V> child(ConcurrentMap<String, ConcurrentMap<String, V>> parent,
			String key) {
		ConcurrentMap<String, V> child = parent.get(key);
		return (child != null) ? child : parent.computeIfAbsent(key, (k) -> new ConcurrentHashMap<>());
	}

	/**
	 * Registers the counters of every outcome at once, so that an outcome that has not
	 * happened yet reads 0 rather than being absent (rates over absent series are empty).
	 */
	private Counter[] registerCounters(String policy, String tier, String routeId) {
		Counter[] counters = new Counter[OUTCOMES.length];
		for (Outcome outcome : OUTCOMES) {
			counters[outcome.ordinal()] = Counter.builder(REQUESTS)
				.description("Requests judged by rate limit policies")
				.tag("policy", policy)
				.tag("tier", tier)
				.tag("route", routeId)
				.tag("outcome", outcome.tagValue())
				.register(this.registry);
		}
		return counters;
	}

	private HoldTimers holdTimers(String policy, String tier, String routeId) {
		ConcurrentMap<String, HoldTimers> byRoute = child(child(this.holdTimersByPolicy, policy), tier);
		HoldTimers timers = byRoute.get(routeId);
		return (timers != null) ? timers : byRoute.computeIfAbsent(routeId,
				(id) -> new HoldTimers(registerHoldTimer(policy, tier, id, Outcome.DELAYED),
						registerHoldTimer(policy, tier, id, Outcome.SHADOW_DELAYED)));
	}

	private Timer registerHoldTimer(String policy, String tier, String routeId, Outcome outcome) {
		return Timer.builder(SHAPING_DELAY)
			.description("How long shaping limits hold requests before forwarding them, as judged; "
					+ "shadow-delayed: how long a shadow policy would have")
			.tag("policy", policy)
			.tag("tier", tier)
			.tag("route", routeId)
			.tag("outcome", outcome.tagValue())
			.register(this.registry);
	}

	private Timer timer(String store) {
		Timer timer = this.timersByStore.get(store);
		return (timer != null) ? timer : this.timersByStore.computeIfAbsent(store,
				(name) -> Timer.builder(DECISION)
					.description("Time spent waiting for a bucket store's verdict")
					.tag("store", name)
					.register(this.registry));
	}

	/**
	 * The meters of one route and tier, found on its first decision, as
	 * {@link #onDecision} registers them, and kept.
	 */
	private final class RouteTierMeters implements RouteTierListener {

		private final String policy;

		private final String tier;

		private final String routeId;

		private final String store;

		private volatile Counter @Nullable [] counters;

		private volatile @Nullable Timer timer;

		private volatile @Nullable HoldTimers holdTimers;

		RouteTierMeters(String policy, String tier, String routeId, String store) {
			this.policy = policy;
			this.tier = tier;
			this.routeId = routeId;
			this.store = store;
		}

		@Override
		public void onDelayed(Outcome outcome, long decisionNanos, long delayNanos) {
			onDecision(outcome, decisionNanos);
			HoldTimers holdTimers = this.holdTimers;
			if (holdTimers == null) {
				holdTimers = holdTimers(this.policy, this.tier, this.routeId);
				this.holdTimers = holdTimers;
			}
			holdTimers.of(outcome).record(delayNanos, TimeUnit.NANOSECONDS);
		}

		@Override
		public void onDecision(Outcome outcome, long decisionNanos) {
			Counter[] counters = this.counters;
			if (counters == null) {
				counters = counters(this.policy, this.tier, this.routeId);
				this.counters = counters;
			}
			counters[outcome.ordinal()].increment();
			if (askedTheStore(outcome)) {
				Timer timer = this.timer;
				if (timer == null) {
					timer = timer(this.store);
					this.timer = timer;
				}
				timer.record(decisionNanos, TimeUnit.NANOSECONDS);
			}
		}

	}

	/**
	 * The hold timers of one route and tier, registered together on its first hold, so
	 * that the one of the other outcome reads 0 rather than being absent, as the
	 * counters do.
	 */
	private record HoldTimers(Timer delayed, Timer shadowDelayed) {

		/**
		 * The timer of a hold's outcome: only holds are told with their delay, and a hold
		 * is {@code delayed} or, in a shadow policy, {@code shadow-delayed}.
		 */
		Timer of(Outcome outcome) {
			return (outcome == Outcome.SHADOW_DELAYED) ? this.shadowDelayed : this.delayed;
		}

	}

}
