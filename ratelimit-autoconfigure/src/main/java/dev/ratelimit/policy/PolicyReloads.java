package dev.ratelimit.policy;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.support.MonotonicClock;
import org.jspecify.annotations.Nullable;

/**
 * What became of the live reloads of the rate limit settings: the last one, which the
 * actuator shows, and how many were accepted and rejected, which metrics count. A
 * rejected reload answers {@code POST /actuator/refresh} with 200 all the same (the
 * status is Spring Cloud's), so this is where an operator sees it without the log.
 */
public final class PolicyReloads {

	private final MonotonicClock clock;

	private final AtomicReference<@Nullable Reload> last = new AtomicReference<>();

	private final AtomicLong accepted = new AtomicLong();

	private final AtomicLong rejected = new AtomicLong();

	/**
	 * @param clock tells when each reload happened, on the epoch's timeline (a clock
	 * anchored once on the wall clock, as no other class reads it)
	 */
	public PolicyReloads(MonotonicClock clock) {
		this.clock = clock;
	}

	/**
	 * Record a reload whose settings were put in force.
	 * @param changedKeys the changed {@code ratelimit.*} keys
	 */
	public void accepted(Set<String> changedKeys) {
		record(new Reload(now(), Outcome.ACCEPTED, List.copyOf(changedKeys), List.of()),
				this.accepted);
	}

	/**
	 * Record a reload whose settings were rejected, the policies in force staying.
	 * @param changedKeys the changed {@code ratelimit.*} keys
	 * @param problems why they were rejected
	 */
	public void rejected(Set<String> changedKeys, List<ConfigurationProblem> problems) {
		record(new Reload(now(), Outcome.REJECTED, List.copyOf(changedKeys), problems),
				this.rejected);
	}

	private Instant now() {
		return Instant.ofEpochSecond(0, this.clock.nanoTime());
	}

	private void record(Reload reload, AtomicLong count) {
		this.last.set(reload);
		count.incrementAndGet();
	}

	/**
	 * The last reload, or {@code null} when the settings were not reloaded since
	 * start-up.
	 */
	public @Nullable Reload last() {
		return this.last.get();
	}

	/**
	 * How many reloads had {@code outcome} since start-up.
	 */
	public long count(Outcome outcome) {
		return (outcome == Outcome.ACCEPTED) ? this.accepted.get() : this.rejected.get();
	}

	/**
	 * What became of a reload.
	 */
	public enum Outcome {

		/**
		 * The settings were valid and are in force.
		 */
		ACCEPTED,

		/**
		 * The settings were invalid; the policies in force stayed.
		 */
		REJECTED;

		/**
		 * The outcome as the actuator and metrics spell it: {@code accepted} or
		 * {@code rejected}.
		 */
		public String value() {
			return name().toLowerCase(Locale.ROOT);
		}

	}

	/**
	 * One reload.
	 *
	 * @param at when it happened
	 * @param outcome whether it was accepted or rejected
	 * @param changedKeys the changed {@code ratelimit.*} keys, sorted
	 * @param problems why it was rejected; empty when it was accepted
	 */
	public record Reload(Instant at, Outcome outcome, List<String> changedKeys, List<ConfigurationProblem> problems) {

		public Reload {
			changedKeys = List.copyOf(changedKeys);
			problems = List.copyOf(problems);
		}

	}

}
