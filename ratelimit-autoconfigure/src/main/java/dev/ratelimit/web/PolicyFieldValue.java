package dev.ratelimit.web;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import dev.ratelimit.algorithm.CalendarPeriods;
import dev.ratelimit.support.MonotonicClock;
import org.jspecify.annotations.Nullable;

/**
 * The value of a tier's {@code RateLimit-Policy} field: written once when the route is
 * built, unless a limit counts in calendar periods, whose window is the length of the
 * period current now ({@link LimitDescription#at}); then written again each time the
 * store's clock enters another period of one of them, and the same string otherwise.
 */
final class PolicyFieldValue {

	private final List<LimitDescription> limits;

	private final Function<List<LimitDescription>, String> value;

	private final MonotonicClock clock;

	/**
	 * The value of every response, for a tier of no limit counted in calendar periods.
	 */
	private final @Nullable String fixed;

	private volatile @Nullable Written written;

	private PolicyFieldValue(List<LimitDescription> limits, Function<List<LimitDescription>, String> value,
			MonotonicClock clock) {
		this.limits = List.copyOf(limits);
		this.value = value;
		this.clock = clock;
		boolean calendar = limits.stream().anyMatch((limit) -> limit.calendar() != null);
		this.fixed = calendar ? null : value.apply(this.limits);
	}

	/**
	 * @param limits the limits the field lists
	 * @param value the field's value for those limits, as described at one instant
	 * @param clock the clock of the store that judges them
	 */
	static PolicyFieldValue of(List<LimitDescription> limits, Function<List<LimitDescription>, String> value,
			MonotonicClock clock) {
		return new PolicyFieldValue(limits, value, clock);
	}

	/**
	 * The field's value now.
	 */
	String value() {
		if (this.fixed != null) {
			return this.fixed;
		}
		long now = this.clock.nanoTime();
		Written written = this.written;
		if (written == null || now < written.fromNanos || now >= written.untilNanos) {
			written = write(now);
			this.written = written;
		}
		return written.value;
	}

	/**
	 * The value at {@code nowNanos}, and how long it holds: while every limit counted in
	 * calendar periods stays in the period it is in now.
	 */
	private Written write(long nowNanos) {
		long from = Long.MIN_VALUE;
		long until = Long.MAX_VALUE;
		List<LimitDescription> described = new ArrayList<>(this.limits.size());
		for (LimitDescription limit : this.limits) {
			CalendarPeriods calendar = limit.calendar();
			if (calendar != null) {
				long index = calendar.index(nowNanos);
				from = Math.max(from, calendar.start(index));
				until = Math.min(until, calendar.end(index));
			}
			described.add(limit.at(nowNanos));
		}
		return new Written(this.value.apply(described), from, until);
	}

	private record Written(String value, long fromNanos, long untilNanos) {
	}

}
