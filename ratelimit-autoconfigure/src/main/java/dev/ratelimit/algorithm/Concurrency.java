package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.Map;

/**
 * Concurrency limit: at most {@code limit} requests of one client in flight at once,
 * whatever their cost. A request admitted takes a slot until its exchange ends
 * ({@link #release}); time gives nothing back, so a rejection cannot say when a slot
 * frees: it asks the client to come back after {@link #RETRY_AFTER}, the
 * {@link #window()} the quota is advertised with.
 */
public record Concurrency(long limit) implements Limit {

	/**
	 * What a rejected request is told to wait, and the window the quota is advertised
	 * with: a slot frees when another request ends, which no clock predicts.
	 */
	public static final Duration RETRY_AFTER = Duration.ofSeconds(1);

	public Concurrency {
		Validation.positive("limit", limit);
	}

	@Override
	public Algorithm algorithm() {
		return Algorithm.CONCURRENCY;
	}

	@Override
	public long quota() {
		return this.limit;
	}

	@Override
	public Duration window() {
		return RETRY_AFTER;
	}

	/**
	 * None: with no slot taken the state is as good as new at once, and while a slot is
	 * taken no idle time makes it so, since only its {@link #release} does. A store keeps
	 * a bucket that holds slots whatever its idle timeout (the Caffeine store), or leases
	 * them (the Redis store).
	 */
	@Override
	public Duration idleTimeout() {
		return Duration.ZERO;
	}

	@Override
	public boolean countsInFlight() {
		return true;
	}

	@Override
	public Map<String, Object> parameters() {
		return Map.of("limit", this.limit);
	}

	@Override
	public void start(StateWords state, long nowNanos) {
		setInFlight(state, 0);
	}

	@Override
	public Decision probe(StateWords state, long nowNanos, long cost) {
		long inFlight = inFlight(state);
		// A probe of nothing (a peek) describes the slots without taking one.
		boolean takes = cost > 0;
		boolean allowed = !takes || inFlight < this.limit;
		if (!allowed) {
			return Decision.rejected(0, this.limit, Nanos.ofValidated(RETRY_AFTER));
		}
		long after = takes ? inFlight + 1 : inFlight;
		return new Decision(true, Math.max(0, this.limit - after), this.limit, 0, 0);
	}

	@Override
	public void commit(StateWords state, long nowNanos, long cost) {
		if (cost > 0) {
			setInFlight(state, inFlight(state) + 1);
		}
	}

	/**
	 * Units are not what it counts: a held request's slot comes back by
	 * {@link #release}, when its exchange ends.
	 */
	@Override
	public void refund(StateWords state, long nowNanos, long units, long consumedAtNanos) {
	}

	@Override
	public void charge(StateWords state, long nowNanos, long units) {
	}

	@Override
	public void release(StateWords state, long nowNanos) {
		setInFlight(state, Math.max(0, inFlight(state) - 1));
	}

	@Override
	public Map<String, Number> describe(StateWords state, long nowNanos) {
		return Map.of("inFlight", inFlight(state));
	}

	/**
	 * The requests in flight carry over whatever the limit was: they are still in flight
	 * and each will give its slot back once. Another algorithm's state means nothing
	 * here.
	 */
	@Override
	public void carryOver(Limit previous, StateWords from, StateWords to, long nowNanos) {
		if (previous instanceof Concurrency) {
			setInFlight(to, inFlight(from));
		}
	}

	// The state's layout: the requests in flight.

	static long inFlight(StateWords state) {
		return state.word0;
	}

	private static void setInFlight(StateWords state, long inFlight) {
		state.word0 = inFlight;
	}

}
