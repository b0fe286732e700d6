package dev.ratelimit.store.redis;

import dev.ratelimit.algorithm.CalendarPeriods;
import org.jspecify.annotations.Nullable;

/**
 * The script arguments of a limit counted in calendar periods, as
 * {@link ScriptProtocol} lays them out. Lua in Redis has no time-zone database, so the
 * calendar arithmetic stays in Java, {@link CalendarPeriods}' as the local store's: the
 * limit's period argument names its calendar ({@code month@Europe/Paris}), part of its
 * tag so that a reload to another unit or zone starts it afresh, and each call carries
 * the periods around this node's clock, the one it falls in, the one before and the two
 * after, among which the script places Redis TIME. Written again only when this node's
 * clock enters another period; thread-safe.
 */
final class CalendarArguments {

	private static final long NANOS_PER_MICRO = 1_000;

	private final CalendarPeriods calendar;

	private volatile @Nullable Written written;

	CalendarArguments(CalendarPeriods calendar) {
		this.calendar = calendar;
	}

	/**
	 * What the limit's period argument is: its unit and zone, {@code month@Europe/Paris}.
	 */
	static String name(CalendarPeriods calendar) {
		return calendar.unit().configName() + "@" + calendar.zone().getId();
	}

	/**
	 * The periods argument of a call at {@code nowNanos} on this node's clock: the index
	 * of the period before the one {@code nowNanos} falls in, then the starts of that
	 * period and of the three after it and the end of the last, in microseconds since the
	 * epoch, separated by spaces.
	 */
	String at(long nowNanos) {
		long index = this.calendar.index(nowNanos);
		Written written = this.written;
		if (written == null || written.index != index) {
			written = new Written(index, periods(index - 1));
			this.written = written;
		}
		return written.text;
	}

	private String periods(long first) {
		StringBuilder text = new StringBuilder(96).append(first);
		for (long index = first; index <= first + 4; index++) {
			text.append(' ').append(Math.floorDiv(this.calendar.start(index), NANOS_PER_MICRO));
		}
		return text.toString();
	}

	private record Written(long index, String text) {
	}

}
